-- The account's signed webhook becomes one notification channel among the others (issue 32): a
-- NotificationChannel row of kind "webhook" for each account with a webhook URL, turned off when
-- the account's webhook was (410 Gone), and its notifications (the delivery log) point at it.
-- SQL cannot encrypt: the URL is kept after "plain:" and sealed by the server at start-up
-- (src/accounts/webhook-setting.ts). The next migration drops the account's old columns.
INSERT INTO "NotificationChannel" ("accountId", "name", "kind", "targetEnc", "targetDigest", "summary", "events", "enabled", "disabledAt", "disabledReason", "createdAt", "updatedAt")
SELECT "id", 'Webhook', 'webhook', 'plain:' || "webhookUrl", 'webhook', 'Signed webhook',
       'episodes-released,season-premiere,series-premiere,season-finale,film-released,game-released',
       CASE WHEN "webhookDisabledAt" IS NULL THEN 1 ELSE 0 END, "webhookDisabledAt", "webhookDisabledReason", CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
FROM "Account" WHERE "webhookUrl" IS NOT NULL;

UPDATE "Notification" SET "channelId" = (
  SELECT c."id" FROM "NotificationChannel" c WHERE c."accountId" = "Notification"."accountId" AND c."kind" = 'webhook'
) WHERE "channelId" IS NULL;
