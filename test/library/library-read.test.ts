import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { setFollow } from '../../src/library/library.ts';
import { libraryPage, type LibraryFilters, type LibraryPageQuery } from '../../src/library/library-read.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';

/**
 * The `library` connection's page read by prepared SQL answers exactly what Prisma's client
 * answered for the same connection query (every scalar column, order, cursor rules): every page
 * size forwards and backwards, from every cursor (a row of the page, one the filters leave out,
 * another account's, one that does not exist), with every filter. Runs on SQLite and PostgreSQL.
 */
initSecretKey(await useTestDatabase());

describe('libraryPage', () => {
  it('answers every connection query as Prisma does', async () => {
    const account = await makeAccount();
    const other = await makeAccount();
    for (let index = 0; index < 6; index += 1) {
      const show = await makeShow();
      await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: index % 3 !== 0, archived: index === 4 });
      if (index === 2) await setFollow({ accountId: other.id, kind: 'show', id: show.id, followed: true });
    }
    await setFollow({ accountId: account.id, kind: 'movie', id: (await makeMovie()).id, followed: true });
    await setFollow({ accountId: account.id, kind: 'game', id: (await makeGame()).id, followed: false });
    const ids = (await db().libraryItem.findMany({ where: { accountId: account.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((row) => row.id);
    const othersId = (await db().libraryItem.findFirstOrThrow({ where: { accountId: other.id } })).id;
    const cursors = [undefined, ids[0]!, ids[3]!, ids.at(-1)!, othersId, 999_999];
    const filters: LibraryFilters[] = [{}, { kind: 'show' }, { followed: true }, { followed: false, archived: false }, { archived: true }, { kind: 'movie', followed: true }];
    let compared = 0;
    for (const filter of filters) {
      for (const cursor of cursors) {
        for (const take of [0, 1, 3, 21, -1, -3, -21]) {
          const query: LibraryPageQuery = cursor === undefined ? { take, skip: 0 } : { take, skip: 1, cursor: { id: cursor } };
          const where = {
            accountId: account.id,
            ...(filter.kind ? { kind: filter.kind } : {}),
            ...(filter.followed == null ? {} : { followed: filter.followed }),
            ...(filter.archived == null ? {} : { archived: filter.archived }),
          };
          const expected = await db().libraryItem.findMany({ ...query, where } as never);
          expect(await libraryPage(account.id, filter, query), JSON.stringify({ filter, query })).toEqual(expected);
          compared += 1;
        }
      }
    }
    expect(compared).toBe(filters.length * cursors.length * 7);
  });

  it('reads a selection with a relation through Prisma, with the relation', async () => {
    const account = await makeAccount();
    const show = await makeShow({ title: 'Related' });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    const [row] = (await libraryPage(account.id, {}, { take: 1, skip: 0, include: { show: true } })) as unknown as { show: { title: string } }[];
    expect(row!.show.title).toBe('Related');
  });
});
