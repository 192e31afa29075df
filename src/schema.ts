import { builder } from './graphql/builder.ts';
import './graphql/errors.ts';
import './catalog/catalog-schema.ts';
import './accounts/account-schema.ts';
import './accounts/account-security-schema.ts';
import './accounts/sign-in-schema.ts';
import './accounts/admin-schema.ts';
import './library/library-schema.ts';
import './library/marks-schema.ts';
import './library/show-progress-schema.ts';
import './library/live-updates-schema.ts';
import './feeds/feeds-schema.ts';
import './imports/import-schema.ts';
import './export/export-schema.ts';
import './calendar/calendar-schema.ts';
import './statistics/statistics-schema.ts';
import './notifications/notifications-schema.ts';
import './imports/pending-imports-schema.ts';
import './notifications/webhook-test-schema.ts';
import './notifications/channels-schema.ts';
import './notifications/show-mutes-schema.ts';
import './accounts/account-links-schema.ts';
import './media-servers/media-servers-schema.ts';
import './media-servers/history/history-schema.ts';
import './sync/sync-schema.ts';

/** The Airdate GraphQL schema: served at /graphql and run by the REST facade. */
export const schema = builder.toSchema({ sortSchema: true });
