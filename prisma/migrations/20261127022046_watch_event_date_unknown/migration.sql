-- AlterTable: SQLite adds a column with a constant default in place (no table copy).
ALTER TABLE "WatchEvent" ADD COLUMN "dateUnknown" BOOLEAN NOT NULL DEFAULT false;
