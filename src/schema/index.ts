import { builder } from './builder.ts';
import './errors.ts';
import '../catalog/catalog-schema.ts';
import './account.ts';
import './account-security.ts';
import './auth.ts';
import './admin.ts';
import './library.ts';
import './feeds.ts';
import '../imports/import-schema.ts';
import './export.ts';
import './calendar.ts';
import './notifications.ts';
import '../imports/pending-imports-schema.ts';
import './webhook-test.ts';
import './account-links.ts';

/** The Airdate GraphQL schema: served at /graphql and run by the REST facade. */
export const schema = builder.toSchema({ sortSchema: true });
