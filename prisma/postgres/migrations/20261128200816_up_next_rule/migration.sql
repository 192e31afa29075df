-- DropForeignKey
ALTER TABLE "MediaServerHistory" DROP CONSTRAINT "MediaServerHistory_accountId_fkey";

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "upNextRule" TEXT NOT NULL DEFAULT 'after-last-watched';

-- AlterTable
ALTER TABLE "LibraryItem" ADD COLUMN     "upNextRule" TEXT;

-- DropTable
DROP TABLE "MediaServerHistory";
