-- CreateIndex
CREATE INDEX "WatchEvent_accountId_episodeId_idx" ON "WatchEvent"("accountId", "episodeId");

-- CreateIndex
CREATE INDEX "WatchEvent_accountId_movieId_idx" ON "WatchEvent"("accountId", "movieId");

-- CreateIndex
CREATE INDEX "WatchEvent_accountId_gameId_idx" ON "WatchEvent"("accountId", "gameId");
