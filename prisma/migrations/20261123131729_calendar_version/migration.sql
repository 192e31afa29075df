-- AlterTable (a plain ADD COLUMN: the Account table keeps its rows and every key pointing at it)
ALTER TABLE "Account" ADD COLUMN "calendarVersion" INTEGER NOT NULL DEFAULT 0;
