import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationError, migrateSqlite, type Migration } from '../../src/db/migrate.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-migrate-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let serial = 0;
const freshFile = () => path.join(folder, `${++serial}.db`);

function migration(name: string, sql: string): Migration {
  return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
}

const init = migration(
  '1_init',
  `CREATE TABLE "Parent" ("id" INTEGER NOT NULL PRIMARY KEY, "name" TEXT);
   CREATE TABLE "Child" ("id" INTEGER NOT NULL PRIMARY KEY, "parentId" INTEGER NOT NULL,
     CONSTRAINT "Child_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Parent" ("id") ON DELETE CASCADE ON UPDATE CASCADE);`,
);
// What `prisma migrate diff` writes to make a SQLite column required: copy the table, drop the old one.
const redefine = migration(
  '2_redefine',
  `PRAGMA defer_foreign_keys=ON;
   PRAGMA foreign_keys=OFF;
   CREATE TABLE "new_Parent" ("id" INTEGER NOT NULL PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '');
   INSERT INTO "new_Parent" ("id", "name") SELECT "id", COALESCE("name", '') FROM "Parent";
   DROP TABLE "Parent";
   ALTER TABLE "new_Parent" RENAME TO "Parent";
   PRAGMA foreign_keys=ON;
   PRAGMA defer_foreign_keys=OFF;`,
);

describe('migrateSqlite', () => {
  it('keeps the rows referring to a table that a migration redefines', () => {
    const file = freshFile();
    expect(migrateSqlite(file, [init])).toEqual(['1_init']);
    const db = new Database(file);
    db.exec(`INSERT INTO "Parent" ("id", "name") VALUES (1, NULL); INSERT INTO "Child" ("id", "parentId") VALUES (10, 1);`);
    db.close();
    expect(migrateSqlite(file, [init, redefine])).toEqual(['2_redefine']);
    const after = new Database(file);
    expect(after.prepare(`SELECT "id", "parentId" FROM "Child"`).all()).toEqual([{ id: 10, parentId: 1 }]);
    after.close();
  });

  it('refuses, and leaves nothing of, a migration that breaks references', () => {
    const file = freshFile();
    migrateSqlite(file, [init]);
    const db = new Database(file);
    db.exec(`INSERT INTO "Parent" ("id") VALUES (1); INSERT INTO "Child" ("id", "parentId") VALUES (10, 1);`);
    db.close();
    const orphaning = migration('2_orphaning', `DELETE FROM "Parent"; CREATE TABLE "Extra" ("id" INTEGER NOT NULL PRIMARY KEY);`);
    expect(() => migrateSqlite(file, [init, orphaning])).toThrow(MigrationError);
    const after = new Database(file);
    expect(after.prepare(`SELECT count(*) AS n FROM "Parent"`).get()).toEqual({ n: 1 });
    expect(after.prepare(`SELECT name FROM sqlite_master WHERE name = 'Extra'`).all()).toEqual([]);
    expect(after.prepare(`SELECT migration_name AS name FROM "_prisma_migrations"`).all()).toEqual([{ name: '1_init' }]);
    after.close();
  });
});
