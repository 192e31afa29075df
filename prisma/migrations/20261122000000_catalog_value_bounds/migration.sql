-- Catalog values brought within the bounds of src/limits.ts, which every way in now enforces:
-- rows stored before (by imports, which create catalog rows every account shares) are repaired
-- once, the way a network catalog's value is treated (src/catalog/catalog-bounds.ts).
-- No schema change. The PostgreSQL migration of the same name runs postgres.sql of this folder.

-- Episodes whose season or number is not a whole number from 0 to 2147483647: SQLite's INTEGER
-- holds them, GraphQL's Int does not, so every account following the show got an error from its
-- feeds. No catalog gives such numbers; they go, with what refers to them (foreign keys are off
-- while migrations run, so dependent rows are deleted here rather than by cascade).
CREATE TEMPORARY TABLE "_OutOfRangeEpisode" AS
  SELECT "id" FROM "Episode"
  WHERE typeof("season") <> 'integer' OR typeof("number") <> 'integer'
     OR "season" < 0 OR "season" > 2147483647 OR "number" < 0 OR "number" > 2147483647;
DELETE FROM "DeliveryAttempt" WHERE "notificationId" IN (
  SELECT "id" FROM "Notification" WHERE "itemKey" IN (SELECT 'episode:' || "id" FROM "_OutOfRangeEpisode"));
DELETE FROM "Notification" WHERE "itemKey" IN (SELECT 'episode:' || "id" FROM "_OutOfRangeEpisode");
DELETE FROM "WatchState" WHERE "episodeId" IN (SELECT "id" FROM "_OutOfRangeEpisode");
DELETE FROM "WatchEvent" WHERE "episodeId" IN (SELECT "id" FROM "_OutOfRangeEpisode");
DELETE FROM "Episode" WHERE "id" IN (SELECT "id" FROM "_OutOfRangeEpisode");
DROP TABLE "_OutOfRangeEpisode";

-- Texts longer than their limit (counted in characters, as length() and substr() count) are
-- shortened to it, ending in "…": titles 500, overviews 10 000. Posters longer than 1 024 or not
-- http(s) become unknown, as do air and release dates outside 1800-01-01 … 2199-12-31.
-- updatedAt is written in the form Prisma stores on SQLite.
UPDATE "Show" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("title") > 500;
UPDATE "Show" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("overview") > 10000;
UPDATE "Show" SET "poster" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Movie" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("title") > 500;
UPDATE "Movie" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("overview") > 10000;
UPDATE "Movie" SET "poster" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Movie" SET "releaseDate" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE "releaseDate" < '1800-01-01' OR "releaseDate" > '2199-12-31';
UPDATE "Game" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("title") > 500;
UPDATE "Game" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("overview") > 10000;
UPDATE "Game" SET "poster" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Game" SET "releaseDate" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE "releaseDate" < '1800-01-01' OR "releaseDate" > '2199-12-31';
UPDATE "Episode" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE length("title") > 500;
UPDATE "Episode" SET "airDate" = NULL, "updatedAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE "airDate" < '1800-01-01' OR "airDate" > '2199-12-31';

-- Feed caches are keyed by the catalog version: none may serve a value from before the repair.
UPDATE "ServerState" SET "catalogVersion" = "catalogVersion" + 1;
