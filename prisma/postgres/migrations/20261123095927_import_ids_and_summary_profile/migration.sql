-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "summaryProfile" TEXT NOT NULL DEFAULT 'full';

-- AlterTable
ALTER TABLE "Show" ADD COLUMN     "imdbId" TEXT;

-- AlterTable
ALTER TABLE "Episode" ADD COLUMN     "imdbId" TEXT,
ADD COLUMN     "tmdbId" INTEGER,
ADD COLUMN     "tvdbId" INTEGER;

-- AlterTable
ALTER TABLE "Movie" ADD COLUMN     "imdbId" TEXT,
ADD COLUMN     "tvdbId" INTEGER;

-- AlterTable
ALTER TABLE "Game" ADD COLUMN     "giantbombId" INTEGER;

-- AlterTable
ALTER TABLE "WatchEvent" ADD COLUMN     "estimated" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "Show_imdbId_key" ON "Show"("imdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Episode_tvdbId_key" ON "Episode"("tvdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Episode_tmdbId_key" ON "Episode"("tmdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Episode_imdbId_key" ON "Episode"("imdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Movie_imdbId_key" ON "Movie"("imdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Movie_tvdbId_key" ON "Movie"("tvdbId");

-- CreateIndex
CREATE UNIQUE INDEX "Game_giantbombId_key" ON "Game"("giantbombId");
