-- DropIndex
DROP INDEX "Notification_accountId_itemKey_key";

-- AlterTable
ALTER TABLE "Account" DROP COLUMN "webhookDisabledAt",
DROP COLUMN "webhookDisabledReason",
DROP COLUMN "webhookUrl";

-- CreateIndex
CREATE INDEX "Notification_accountId_itemKey_idx" ON "Notification"("accountId", "itemKey");

-- CreateIndex
CREATE UNIQUE INDEX "Notification_channelId_itemKey_key" ON "Notification"("channelId", "itemKey");
