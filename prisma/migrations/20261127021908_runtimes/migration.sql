-- AlterTable
ALTER TABLE "Episode" ADD COLUMN "runtime" INTEGER;

-- AlterTable
ALTER TABLE "Movie" ADD COLUMN "runtime" INTEGER;
