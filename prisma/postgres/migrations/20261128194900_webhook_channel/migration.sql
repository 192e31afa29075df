-- This is an empty migration.

-- The PostgreSQL part of this migration (scripts/derive-postgres-schema.ts appends it to the derived,
-- empty, schema migration): the account's signed webhook becomes a notification channel, as in
-- the SQLite migration.sql beside it. updatedAt is UTC wall time, as Prisma stores timestamp(3).
INSERT INTO "NotificationChannel" ("accountId", "name", "kind", "targetEnc", "targetDigest", "summary", "events", "enabled", "disabledAt", "disabledReason", "createdAt", "updatedAt")
SELECT "id", 'Webhook', 'webhook', 'plain:' || "webhookUrl", 'webhook', 'Signed webhook',
       'episodes-released,season-premiere,series-premiere,season-finale,film-released,game-released',
       "webhookDisabledAt" IS NULL, "webhookDisabledAt", "webhookDisabledReason", (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC')
FROM "Account" WHERE "webhookUrl" IS NOT NULL;

UPDATE "Notification" SET "channelId" = (
  SELECT c."id" FROM "NotificationChannel" c WHERE c."accountId" = "Notification"."accountId" AND c."kind" = 'webhook'
) WHERE "channelId" IS NULL;
