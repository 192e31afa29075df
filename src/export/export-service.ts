import { ReadableStream } from '@whatwg-node/fetch';
import { db } from '../db/client.ts';
import { localDate } from '../time/dates.ts';
import {
  exportFileName,
  exportFormat,
  exportVersion,
  type ExportDocument,
  type ExportHead,
  type ExportShow,
  type ExportTitle,
} from './export-format.ts';
import { readExportShows, readExportTitles, type ExportPage } from './export-read.ts';
import { findWebhook } from '../accounts/webhook-setting.ts';

/**
 * The library export (decisions.md "Import and export", docs/export-format.md), one service for
 * both edges:
 * - GraphQL (`Query.export`) resolves the head with `loadExportHead` and each list field with
 *   `collectExportSection`, so a client gets the document as typed data;
 * - `GET /api/export` runs a named GraphQL operation for the head (account, file name, the
 *   schema's auth and rules) and then streams the lists from the same readers with
 *   `streamExportBody`. graphql-js 16 has no `@stream`: executing the list fields would build
 *   the whole document (100 000 history entries and more) in memory before the first byte.
 */

/** The head of an export plus what the HTTP edge needs to name the download. */
export interface LoadedExportHead extends ExportHead {
  /** `airdate-export-YYYY-MM-DD.json`, in the account's time zone. */
  fileName: string;
}

/** Reads the account settings for an export made at `now` (default: this instant). */
export async function loadExportHead(props: { accountId: number; now?: Date }): Promise<LoadedExportHead> {
  const now = props.now ?? new Date();
  const { name, timezone } = await db().account.findUniqueOrThrow({ where: { id: props.accountId }, select: { name: true, timezone: true } });
  const account = { name, timezone, webhookUrl: (await findWebhook(props.accountId))?.url ?? null };
  return {
    format: exportFormat,
    version: exportVersion,
    exportedAt: now.toISOString(),
    account,
    fileName: exportFileName(localDate(account.timezone, now)),
  };
}

/** The three lists of the document, in document order; each reads nothing until iterated. */
export type ExportSection = 'shows' | 'movies' | 'games';

/** One section's items in export order (or the `page` of them), a bounded batch at a time. */
export function readExportSection(accountId: number, section: ExportSection, page?: ExportPage): AsyncGenerator<ExportShow[] | ExportTitle[]> {
  if (section === 'shows') return readExportShows(accountId, page);
  return readExportTitles(accountId, section === 'movies' ? 'movie' : 'game', page);
}

/** A section, or a page of it, in memory: for GraphQL clients and tests, not for the download. */
export async function collectExportSection(accountId: number, section: ExportSection, page?: ExportPage): Promise<(ExportShow | ExportTitle)[]> {
  const items: (ExportShow | ExportTitle)[] = [];
  for await (const batch of readExportSection(accountId, section, page)) items.push(...batch);
  return items;
}

/** The whole document in memory (GraphQL's view; the REST download streams instead). */
export async function collectExport(props: { accountId: number; now?: Date }): Promise<ExportDocument> {
  const { fileName: _name, ...head } = await loadExportHead(props);
  const [shows, movies, games] = [
    (await collectExportSection(props.accountId, 'shows')) as ExportShow[],
    (await collectExportSection(props.accountId, 'movies')) as ExportTitle[],
    (await collectExportSection(props.accountId, 'games')) as ExportTitle[],
  ];
  return { ...head, shows, movies, games };
}

/** The document as JSON text pieces: the head, then one piece per item (one item per line). */
async function* exportText(head: ExportHead, accountId: number): AsyncGenerator<string> {
  const { format, version, exportedAt, account } = head;
  yield JSON.stringify({ format, version, exportedAt, account }).slice(0, -1);
  for (const section of ['shows', 'movies', 'games'] as const) {
    yield `,\n"${section}":[`;
    let separator = '\n';
    for await (const batch of readExportSection(accountId, section)) {
      for (const item of batch) {
        yield separator + JSON.stringify(item);
        separator = ',\n';
      }
    }
    yield ']';
  }
  yield '}\n';
}

/** Ends a download whose reads failed; the unfinished document before it can never parse. */
export const failureTrailer = '\n{"error":"the export failed while it was being sent: this file is incomplete, export again"}\n';

/** Bytes per stream chunk: large enough that chunk overhead vanishes, small enough to stay flat. */
const chunkBytes = 64 * 1024;

export interface StreamExportProps {
  head: ExportHead;
  accountId: number;
  /** Called with a failure after the response started (the body then ends with `failureTrailer`). */
  onError: (error: unknown) => void;
}

/**
 * The export document as a byte stream, produced on demand: each pull reads the next batches
 * until about `chunkBytes` of JSON are ready, so memory stays bounded by one batch plus one chunk
 * and a slow client slows the reads down instead of piling up text. The concatenated chunks are
 * one JSON document equal to `collectExport`'s (compact, one item per line).
 */
export function streamExportBody(props: StreamExportProps): ReadableStream<Uint8Array> {
  const pieces = exportText(props.head, props.accountId);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = '';
      try {
        while (text.length < chunkBytes) {
          const next = await pieces.next();
          if (next.done) {
            if (text !== '') controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += next.value;
        }
      } catch (error) {
        // The status line is out already. Erroring the stream would leave the server adapter's
        // response open (the client would wait for ever), so the body ends here with a line that
        // keeps the file from parsing as JSON and says why.
        props.onError(error);
        controller.enqueue(encoder.encode(`${text}${failureTrailer}`));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}
