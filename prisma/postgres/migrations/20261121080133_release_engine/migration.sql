-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "webhookDisabledAt" TIMESTAMP(3),
ADD COLUMN     "webhookDisabledReason" TEXT;

-- CreateTable
CREATE TABLE "Notification" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "itemKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "releaseDate" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastAttemptAt" TIMESTAMP(3),
    "nextAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeliveryAttempt" (
    "id" SERIAL NOT NULL,
    "notificationId" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "url" TEXT NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER NOT NULL,
    "error" TEXT,
    "outcome" TEXT NOT NULL,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "DeliveryAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgendaJob" (
    "id" TEXT NOT NULL,
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
    "attrs" TEXT NOT NULL,

    CONSTRAINT "AgendaJob_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeliveryAttempt" ADD CONSTRAINT "DeliveryAttempt_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "Notification"("id") ON DELETE CASCADE ON UPDATE CASCADE;
