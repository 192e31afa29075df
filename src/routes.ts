import { calendarRoute } from './calendar/calendar-route.ts';
import { exportRoute } from './export/export-route.ts';
import { feedRoutes } from './feeds/feeds-routes.ts';
import type { RestRoute } from './http/rest-route.ts';
import { importRoute } from './imports/import-route.ts';
import { libraryRoutes } from './library/library-routes.ts';
import { mediaServerRoute } from './media-servers/media-servers-route.ts';
import { syncRoute } from './sync/sync-route.ts';

/**
 * Every token-carrying REST route, each declared once in its feature (path, token placement,
 * input and output schemas, OpenAPI operation, handler): app.ts routes by this list and the
 * OpenAPI document describes it.
 */
export const restRoutes: readonly RestRoute[] = [...feedRoutes, ...libraryRoutes, syncRoute, importRoute, calendarRoute, exportRoute, mediaServerRoute];
