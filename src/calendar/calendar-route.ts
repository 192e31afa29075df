import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
// The server adapter's Response class, as in responses.ts: its bytes go to the socket directly.
import { Response } from '@whatwg-node/fetch';
import { listLimits } from '../limits.ts';
import { createAccountCache } from '../http/account-cache.ts';
import { calendarDays, calendarKinds, type CalendarKind } from './calendar-service.ts';
import { localDate } from '../time/dates.ts';
import type { AuthenticatedAccount } from '../graphql/context.ts';
import { renderIcs, type IcsEvent, type WrittenEvent } from './calendar-ics.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { RestHandler, RestRoute } from '../http/rest-route.ts';
import { prepareOperation, runOperation } from '../graphql/run-operation.ts';
import { accountCaching, matchesEtag } from '../http/feed-bodies.ts';
import { queryParameter } from '../http/rest-input.ts';
import { error, etag, ifNoneMatch, notModified, queryParameterSpec } from '../openapi/operation-parts.ts';
import { calendarDaysSchemas, calendarKindsSchema } from './calendar-rest-schemas.ts';

const calendarOperation = `
  query CalendarFeed($past: Int, $future: Int, $kinds: [FeedItemKind!]) {
    calendar(past: $past, future: $future, kinds: $kinds) {
      name
      events(first: ${listLimits.calendarEvents.max}) { uid kind date updatedAt summary description }
    }
  }`;

/** Accounts whose rendered calendar is kept in memory (a few hundred KB to a few MB each). */
const cacheCapacity = 500;

/**
 * Accounts whose events' texts are kept for the next render (a few MB each for the biggest
 * libraries): a follow change then writes only the events it changed. The most recently
 * rendered accounts are the ones that change and fetch again.
 */
const writtenCapacity = 16;

/**
 * Names the bytes this code renders from given versions: part of every ETag, so a server that
 * renders differently (a new release) never answers 304 to a calendar an older one sent. Change
 * it with any change to what a calendar shows or how it is written.
 */
const renderFormat = 'calendar-1';

/** Headers of the 200 and the 304 alike: a token in the URL must not leak through a Referer or a shared cache. */
const privacyHeaders = { ...accountCaching, 'referrer-policy': 'no-referrer' };

/** The calendar's query parameters, checked; `key` names the combination for the cache. */
interface CalendarParams {
  past: number;
  future: number;
  kinds: CalendarKind[];
  key: string;
}

export interface CalendarRouteProps {
  schema: GraphQLSchema;
}

let renders = 0;

/** Calendars this process has loaded and rendered; tests read differences (a 304 must add none). */
export function calendarRenderCount(): number {
  return renders;
}

/**
 * `GET /api/calendar.ics`: runs the `calendar` GraphQL operation and renders it as iCalendar.
 *
 * What a calendar shows depends on the account's `calendarVersion` (follows, archives, settings,
 * imports), the catalog's version, the local date, the zone, the account name and the query's
 * parameters, and on nothing else (not on watched state: a toggle leaves the calendar alone).
 * Those make the cache key, and the ETag is a hash of that key, so `If-None-Match` is answered
 * 304 from the token check alone, before any loading or rendering, on any server instance and
 * after a restart. The price: a catalog change anywhere gives every calendar a new ETag (one
 * 200 with the same bytes). The rendering is cached per account under the key (one render for
 * concurrent requests). HEAD gets the same answer (app.ts drops the body), 304 included.
 */
export function createCalendarHandler(props: CalendarRouteProps): RestHandler {
  const { schema } = props;
  const operation = prepareOperation(schema, calendarOperation);
  const rendered = createAccountCache<Promise<Buffer>>(cacheCapacity, 'calendar-bodies');
  const writtenEvents = createAccountCache<Map<string, WrittenEvent>>(writtenCapacity, 'calendar-written-events');

  const render = async (context: GraphQLContext, params: CalendarParams): Promise<Buffer> => {
    renders += 1;
    const variables = { past: params.past, future: params.future, kinds: params.kinds.map((kind) => kind.toUpperCase()) };
    const data = await runOperation(operation, context, variables);
    const { name, events } = data.calendar as { name: string; events: (Omit<IcsEvent, 'kind'> & { kind: string })[] };
    const { id } = context.account;
    const written = new Map<string, WrittenEvent>();
    const previous = writtenEvents.get(id, 'events');
    // GraphQL answers enum names (EPISODE); the renderer takes the item kinds.
    const icsEvents = events.map((event) => ({ ...event, kind: event.kind.toLowerCase() as IcsEvent['kind'] }));
    const body = await renderIcs({ name, events: icsEvents }, previous, written);
    writtenEvents.set(id, 'events', written);
    return body;
  };

  const handler: RestHandler = async (request, context) => {
    const params = calendarParams(new URL(request.url).searchParams);
    const { account } = context;
    const key = calendarCacheKey(account, params.key);
    const etag = calendarEtag(account, key);
    if (matchesEtag(request.headers.get('if-none-match'), etag)) {
      return new Response(null, { status: 304, headers: { etag, ...privacyHeaders } });
    }
    let body = rendered.get(account.id, key);
    if (body === undefined) {
      body = render(context, params);
      rendered.set(account.id, key, body);
      const pending = body;
      pending.catch(() => rendered.forget(account.id, pending));
    }
    const bytes = await body;
    return new Response(bytes as unknown as BodyInit, {
      status: 200,
      headers: {
        'content-type': 'text/calendar; charset=utf-8',
        'content-length': String(bytes.byteLength),
        'content-disposition': 'inline; filename="airdate.ics"',
        etag,
        ...privacyHeaders,
      },
    });
  };
  // The ETag is a hash of the key: a 304 needs nothing rendered or kept, here as above.
  handler.revalidate = (search, account, ifNoneMatch) => {
    const etag = calendarEtag(account, calendarCacheKey(account, calendarParams(search).key));
    return matchesEtag(ifNoneMatch, etag) ? { etag, ...privacyHeaders } : undefined;
  };
  return handler;
}

/** The calendar's ETag for `account` under `key`, the same on every server instance. */
function calendarEtag(account: AuthenticatedAccount, key: string): string {
  return `"${createHash('sha256').update(`${renderFormat}:${account.id}:${key}`).digest('base64url').slice(0, 32)}"`;
}

/**
 * Every version the calendar's bytes depend on. The account name is in the body
 * (`X-WR-CALNAME`); the zone is there although a change of zone bumps `calendarVersion` too.
 */
function calendarCacheKey(account: AuthenticatedAccount, paramsKey: string, now: Date = new Date()): string {
  const { calendarVersion, catalogVersion, timezone, name } = account;
  return `${calendarVersion}:${catalogVersion}:${localDate(timezone, now)}:${timezone}:${paramsKey}:${name}`;
}

/**
 * Reads `past`, `future` and `kinds` from the query string through their schemas
 * (openapi/request-schemas.ts); anything else (the token, a calendar app's own additions) is
 * ignored. Each may appear once.
 * @throws HttpError 400 for a malformed or out-of-range value, or an unknown kind.
 */
function calendarParams(search: URLSearchParams): CalendarParams {
  // calendarDays gives the default when the parameter is absent.
  const days = (name: 'past' | 'future') => calendarDays(name, queryParameter(search, name, calendarDaysSchemas[name], `${name} may be given once`));
  const past = days('past');
  const future = days('future');
  const kinds = queryParameter(search, 'kinds', calendarKindsSchema, 'kinds may be given once') ?? [...calendarKinds];
  return { past, future, kinds, key: `${past}:${future}:${kinds.join(',')}` };
}

/** `GET /api/calendar.ics`, as app.ts routes it and the OpenAPI document describes it. */
export const calendarRoute: RestRoute = {
  method: 'GET',
  paths: ['/api/calendar.ics'],
  template: '/api/calendar.ics',
  auth: 'header-or-query',
  operation: {
    summary: 'Releases as an iCalendar feed',
    tag: 'Feeds',
    description: 'All-day events for followed items from `past` days before to `future` days after the local today.',
    parameters: [
      queryParameterSpec('past', calendarDaysSchemas.past),
      queryParameterSpec('future', calendarDaysSchemas.future),
      queryParameterSpec('kinds', calendarKindsSchema),
      ifNoneMatch,
    ],
    responses: {
      200: {
        description: 'The calendar.',
        content: { 'text/calendar': { schema: { type: 'string' } } },
        headers: { ...etag, 'Content-Disposition': { description: '`inline; filename="airdate.ics"`', schema: { type: 'string' } } },
      },
      304: notModified,
      400: error('A malformed or out-of-range value, a parameter given twice, or an unknown kind.'),
    },
  },
  handler: ({ schema }) => createCalendarHandler({ schema }),
};
