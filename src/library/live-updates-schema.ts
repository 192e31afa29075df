import { builder } from '../graphql/builder.ts';
import { ForbiddenError } from '../errors.ts';
import { comesFromOwnPage } from '../graphql/graphql-access.ts';
import type { LibraryChange, LiveUpdates } from './live-updates.ts';

declare module '../graphql/context.ts' {
  interface GraphQLServices {
    /** The libraryChanged streams (live-updates.ts); absent where nothing streams (the REST facade, commands). */
    live?: LiveUpdates;
  }
}

const LibraryChangeRef = builder.objectRef<LibraryChange>('LibraryChange').implement({
  description: "The viewer's data changed (a mark, a follow, a setting, an import, a catalog refresh): read what you show again.",
  fields: (t) => ({
    feedVersion: t.exposeInt('feedVersion', { description: "The account's feed version now (bumped by every change to its library or settings)." }),
    calendarVersion: t.exposeInt('calendarVersion', { description: "The account's calendar version now (follows, archives, settings, imports)." }),
    catalogVersion: t.exposeInt('catalogVersion', { description: "The catalog's version now (titles, episodes, dates)." }),
  }),
});

builder.subscriptionField('libraryChanged', (t) =>
  t.field({
    type: LibraryChangeRef,
    description:
      "An event each time the viewer's library, settings or the catalog changed, whoever changed it, within a second or so. Over " +
      'server-sent events (GET or POST /graphql with `Accept: text/event-stream`), with a comment line every 12 s to keep proxies from ' +
      'closing it. With the session cookie, only from a page of this site; a bounded number of streams per session or token and per ' +
      'account (docs/web-app.md). The stream ends when the session or token that opened it does (sign-out, a password change, a ' +
      'regenerated token).',
    subscribe: (_root, _args, context) => {
      const live = context.services.live;
      if (!live) throw new Error('live updates are not served here');
      if (context.web?.via === 'session' && !comesFromOwnPage(context.web.request, context.web.settings)) {
        throw new ForbiddenError('a live update stream opened with the session cookie must come from a page of this site');
      }
      const { credential } = context.account;
      // Every request /graphql authenticated carries one; nothing else subscribes.
      if (!credential) throw new Error('a live update stream needs the session or token it was opened with');
      return live.open(context.account.id, credential);
    },
    resolve: (change) => change,
  }),
);
