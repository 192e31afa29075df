-- This is an empty migration.

-- The PostgreSQL part of this migration (scripts/derive-postgres-schema.ts appends it to the derived,
-- empty, schema migration). PostgreSQL's int4 columns cannot hold an out-of-range season or
-- number, so only the texts, posters and dates are repaired here, as on SQLite.

-- Texts longer than their limit (counted in characters, as length() and substr() count) are
-- shortened to it, ending in "…": titles 500, overviews 10 000. Posters longer than 1 024 or not
-- http(s) become unknown, as do air and release dates outside 1800-01-01 … 2199-12-31.
-- updatedAt is UTC wall time, as Prisma stores timestamp(3) columns.
UPDATE "Show" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("title") > 500;
UPDATE "Show" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("overview") > 10000;
UPDATE "Show" SET "poster" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Movie" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("title") > 500;
UPDATE "Movie" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("overview") > 10000;
UPDATE "Movie" SET "poster" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Movie" SET "releaseDate" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE "releaseDate" < '1800-01-01' OR "releaseDate" > '2199-12-31';
UPDATE "Game" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("title") > 500;
UPDATE "Game" SET "overview" = substr("overview", 1, 9999) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("overview") > 10000;
UPDATE "Game" SET "poster" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC')
  WHERE length("poster") > 1024 OR (lower(substr("poster", 1, 7)) <> 'http://' AND lower(substr("poster", 1, 8)) <> 'https://');
UPDATE "Game" SET "releaseDate" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE "releaseDate" < '1800-01-01' OR "releaseDate" > '2199-12-31';
UPDATE "Episode" SET "title" = substr("title", 1, 499) || '…', "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE length("title") > 500;
UPDATE "Episode" SET "airDate" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE "airDate" < '1800-01-01' OR "airDate" > '2199-12-31';

-- Feed caches are keyed by the catalog version: none may serve a value from before the repair.
UPDATE "ServerState" SET "catalogVersion" = "catalogVersion" + 1;
