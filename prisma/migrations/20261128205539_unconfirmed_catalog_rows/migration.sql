-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Show" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tmdbId" INTEGER,
    "tvdbId" INTEGER,
    "imdbId" TEXT,
    "title" TEXT NOT NULL,
    "poster" TEXT,
    "overview" TEXT,
    "ownerAccountId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Show_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Show" ("createdAt", "id", "imdbId", "overview", "poster", "title", "tmdbId", "tvdbId", "updatedAt") SELECT "createdAt", "id", "imdbId", "overview", "poster", "title", "tmdbId", "tvdbId", "updatedAt" FROM "Show";
DROP TABLE "Show";
ALTER TABLE "new_Show" RENAME TO "Show";
CREATE UNIQUE INDEX "Show_tmdbId_key" ON "Show"("tmdbId");
CREATE UNIQUE INDEX "Show_tvdbId_key" ON "Show"("tvdbId");
CREATE UNIQUE INDEX "Show_imdbId_key" ON "Show"("imdbId");
CREATE INDEX "Show_ownerAccountId_idx" ON "Show"("ownerAccountId");
CREATE TABLE "new_Movie" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tmdbId" INTEGER,
    "imdbId" TEXT,
    "tvdbId" INTEGER,
    "title" TEXT NOT NULL,
    "poster" TEXT,
    "overview" TEXT,
    "releaseDate" TEXT,
    "runtime" INTEGER,
    "ownerAccountId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Movie_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Movie" ("createdAt", "id", "imdbId", "overview", "poster", "releaseDate", "runtime", "title", "tmdbId", "tvdbId", "updatedAt") SELECT "createdAt", "id", "imdbId", "overview", "poster", "releaseDate", "runtime", "title", "tmdbId", "tvdbId", "updatedAt" FROM "Movie";
DROP TABLE "Movie";
ALTER TABLE "new_Movie" RENAME TO "Movie";
CREATE UNIQUE INDEX "Movie_tmdbId_key" ON "Movie"("tmdbId");
CREATE UNIQUE INDEX "Movie_imdbId_key" ON "Movie"("imdbId");
CREATE UNIQUE INDEX "Movie_tvdbId_key" ON "Movie"("tvdbId");
CREATE INDEX "Movie_releaseDate_idx" ON "Movie"("releaseDate");
CREATE INDEX "Movie_ownerAccountId_idx" ON "Movie"("ownerAccountId");
CREATE TABLE "new_Game" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "igdbId" INTEGER,
    "giantbombId" INTEGER,
    "title" TEXT NOT NULL,
    "poster" TEXT,
    "overview" TEXT,
    "releaseDate" TEXT,
    "ownerAccountId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Game_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Game" ("createdAt", "giantbombId", "id", "igdbId", "overview", "poster", "releaseDate", "title", "updatedAt") SELECT "createdAt", "giantbombId", "id", "igdbId", "overview", "poster", "releaseDate", "title", "updatedAt" FROM "Game";
DROP TABLE "Game";
ALTER TABLE "new_Game" RENAME TO "Game";
CREATE UNIQUE INDEX "Game_igdbId_key" ON "Game"("igdbId");
CREATE UNIQUE INDEX "Game_giantbombId_key" ON "Game"("giantbombId");
CREATE INDEX "Game_releaseDate_idx" ON "Game"("releaseDate");
CREATE INDEX "Game_ownerAccountId_idx" ON "Game"("ownerAccountId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
