import type { GraphQLSchema } from 'graphql';
// The server adapter's Response class, as in responses.ts: its bytes go to the socket directly.
import { Response } from '@whatwg-node/fetch';
import { HttpError } from '../http/responses.ts';
import { listLimits } from '../limits.ts';
import type { Logger } from '../log.ts';
import { createAccountCache } from '../services/account-cache.ts';
import { calendarDays, calendarKinds, calendarMaxDays, type CalendarKind } from '../services/calendar.ts';
import { feedCacheKey } from '../services/feeds.ts';
import { renderIcs, type IcsEvent, type RenderedCalendar } from './calendar-ics.ts';
import type { MachineHandler } from './machine-routes.ts';
import { prepareOperation, runOperation } from './run-operation.ts';

const calendarOperation = `
  query CalendarFeed($past: Int, $future: Int, $kinds: [FeedItemKind!]) {
    calendar(past: $past, future: $future, kinds: $kinds) {
      name
      events(first: ${listLimits.calendarEvents.max}) { uid kind date updatedAt summary description }
    }
  }`;

/** Accounts whose rendered calendar is kept in memory (a few hundred KB each at most). */
const cacheCapacity = 500;

/** Headers of the 200 and the 304 alike: a token in the URL must not leak through a Referer or a shared cache. */
const privacyHeaders = { 'cache-control': 'private', 'referrer-policy': 'no-referrer' };

/** The calendar's query parameters, checked; `key` names the combination for the cache. */
interface CalendarParams {
  past: number;
  future: number;
  kinds: CalendarKind[];
  key: string;
}

export interface CalendarRouteProps {
  schema: GraphQLSchema;
  logger: Logger;
}

/**
 * `GET /api/calendar.ics`: runs the `calendar` GraphQL operation and renders it as iCalendar.
 * The rendered bytes and their ETag are kept per account under the feed cache key (library and
 * catalog versions, local date, zone) plus the account name and the parameters, so a calendar
 * app polling an unchanged library gets a 304 without a query beyond the token check. HEAD gets
 * the same answer (app.ts drops the body), 304 included.
 */
export function createCalendarHandler(props: CalendarRouteProps): MachineHandler {
  const { schema, logger } = props;
  const operation = prepareOperation(schema, calendarOperation);
  const rendered = createAccountCache<RenderedCalendar>(cacheCapacity);

  return async (request, context) => {
    const params = calendarParams(new URL(request.url).searchParams);
    const { account } = context;
    const key = `${feedCacheKey(account)}:${account.name}:${params.key}`;
    let calendar = rendered.get(account.id, key);
    if (calendar === undefined) {
      const variables = { past: params.past, future: params.future, kinds: params.kinds.map((kind) => kind.toUpperCase()) };
      const data = await runOperation(operation, context, logger, variables);
      const { name, events } = data.calendar as { name: string; events: (Omit<IcsEvent, 'kind'> & { kind: string })[] };
      // GraphQL answers enum names (EPISODE); the renderer takes the item kinds.
      calendar = await renderIcs({ name, events: events.map((event) => ({ ...event, kind: event.kind.toLowerCase() as IcsEvent['kind'] })) });
      rendered.set(account.id, key, calendar);
    }
    if (matchesEtag(request.headers.get('if-none-match'), calendar.etag)) {
      return new Response(null, { status: 304, headers: { etag: calendar.etag, ...privacyHeaders } });
    }
    return new Response(calendar.body as unknown as BodyInit, {
      status: 200,
      headers: {
        'content-type': 'text/calendar; charset=utf-8',
        'content-length': String(calendar.body.byteLength),
        'content-disposition': 'inline; filename="airdate.ics"',
        etag: calendar.etag,
        ...privacyHeaders,
      },
    });
  };
}

/**
 * Reads `past`, `future` and `kinds` from the query string; anything else (the token, a calendar
 * app's own additions) is ignored. Each may appear once.
 * @throws HttpError 400 for a malformed or out-of-range value, or an unknown kind.
 */
function calendarParams(search: URLSearchParams): CalendarParams {
  const past = dayCount(search, 'past');
  const future = dayCount(search, 'future');
  const listed = single(search, 'kinds');
  let kinds: CalendarKind[] = [...calendarKinds];
  if (listed !== null) {
    const names = listed.split(',').map((name) => name.trim());
    const unknown = names.find((name) => !(calendarKinds as readonly string[]).includes(name));
    if (unknown !== undefined) {
      throw new HttpError(400, `unknown kind "${unknown}"; kinds is a comma-separated list of ${calendarKinds.join(', ')}`);
    }
    // Canonical order and no repeats: `movie,episode` and `episode,movie,movie` share a cache entry.
    kinds = calendarKinds.filter((kind) => names.includes(kind));
  }
  return { past, future, kinds, key: `${past}:${future}:${kinds.join(',')}` };
}

function single(search: URLSearchParams, name: string): string | null {
  const values = search.getAll(name);
  if (values.length > 1) throw new HttpError(400, `${name} may be given once`);
  return values[0] ?? null;
}

function dayCount(search: URLSearchParams, name: 'past' | 'future'): number {
  const text = single(search, name);
  if (text === null) return calendarDays(name, undefined);
  // Digits only: Number() would accept ' 7', '1e3', '0x10' and '7.0'.
  if (!/^\d{1,9}$/.test(text)) throw new HttpError(400, `${name} must be a whole number of days from 0 to ${calendarMaxDays}`);
  return calendarDays(name, Number(text));
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
