-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "calendarVersion" INTEGER NOT NULL DEFAULT 0;
