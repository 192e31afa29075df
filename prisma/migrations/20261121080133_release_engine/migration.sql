-- AlterTable
ALTER TABLE "Account" ADD COLUMN "webhookDisabledAt" DATETIME;
ALTER TABLE "Account" ADD COLUMN "webhookDisabledReason" TEXT;

-- CreateTable
CREATE TABLE "Notification" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "itemKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "releaseDate" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastAttemptAt" DATETIME,
    "nextAttemptAt" DATETIME,
    "deliveredAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Notification_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DeliveryAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "notificationId" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "at" DATETIME NOT NULL,
    "url" TEXT NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER NOT NULL,
    "error" TEXT,
    "outcome" TEXT NOT NULL,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "DeliveryAttempt_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "Notification" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AgendaJob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" BIGINT,
    "lockedAt" BIGINT,
    "lastRunAt" BIGINT,
    "lastFinishedAt" BIGINT,
    "failedAt" BIGINT,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "uniqueKey" TEXT,
    "attrs" TEXT NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Notification_webhookId_key" ON "Notification"("webhookId");

-- CreateIndex
CREATE INDEX "Notification_accountId_createdAt_idx" ON "Notification"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "Notification_status_nextAttemptAt_idx" ON "Notification"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "Notification_accountId_itemKey_key" ON "Notification"("accountId", "itemKey");

-- CreateIndex
CREATE INDEX "DeliveryAttempt_notificationId_number_idx" ON "DeliveryAttempt"("notificationId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "AgendaJob_uniqueKey_key" ON "AgendaJob"("uniqueKey");

-- CreateIndex
CREATE INDEX "AgendaJob_name_nextRunAt_idx" ON "AgendaJob"("name", "nextRunAt");

-- CreateIndex
CREATE INDEX "AgendaJob_nextRunAt_idx" ON "AgendaJob"("nextRunAt");
