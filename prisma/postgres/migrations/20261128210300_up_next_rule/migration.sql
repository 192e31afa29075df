-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "upNextRule" TEXT NOT NULL DEFAULT 'after-last-watched';

-- AlterTable
ALTER TABLE "LibraryItem" ADD COLUMN     "upNextRule" TEXT;
