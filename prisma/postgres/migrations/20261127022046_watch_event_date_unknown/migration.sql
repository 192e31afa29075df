-- AlterTable
ALTER TABLE "WatchEvent" ADD COLUMN     "dateUnknown" BOOLEAN NOT NULL DEFAULT false;
