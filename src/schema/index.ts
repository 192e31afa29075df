import { builder } from './builder.ts';
import './errors.ts';
import './catalog.ts';
import './account.ts';
import './account-security.ts';
import './auth.ts';
import './admin.ts';
import './library.ts';
import './feeds.ts';
import './import.ts';
import './export.ts';
import './calendar.ts';
import './notifications.ts';
import './pending-imports.ts';
import './webhook-test.ts';

/** The Airdate GraphQL schema: served at /graphql and run by the REST facade. */
export const schema = builder.toSchema({ sortSchema: true });
