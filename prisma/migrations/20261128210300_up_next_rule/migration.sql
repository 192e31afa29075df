-- AlterTable: SQLite adds a column with a constant default in place (no table copy).
ALTER TABLE "Account" ADD COLUMN "upNextRule" TEXT NOT NULL DEFAULT 'after-last-watched';

-- AlterTable
ALTER TABLE "LibraryItem" ADD COLUMN "upNextRule" TEXT;
