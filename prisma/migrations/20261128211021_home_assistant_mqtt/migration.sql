-- CreateTable
CREATE TABLE "MediaServerHistory" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "encryptedKey" TEXT NOT NULL,
    "serverUserId" TEXT,
    "serverUserName" TEXT,
    "state" TEXT NOT NULL DEFAULT 'idle',
    "dryRun" BOOLEAN NOT NULL DEFAULT false,
    "read" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "report" TEXT,
    "error" TEXT,
    "periodic" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "MediaServerHistory_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MqttDevice" (
    "accountId" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deviceId" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "stateKey" TEXT NOT NULL DEFAULT '',
    "lastWatchEventId" INTEGER NOT NULL DEFAULT 0,
    "lastNotificationId" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL
);

-- AlterTable (a column added at the end: no copy of the table)
ALTER TABLE "Account" ADD COLUMN "homeAssistantMqtt" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerHistory_accountId_kind_key" ON "MediaServerHistory"("accountId", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "MqttDevice_deviceId_key" ON "MqttDevice"("deviceId");
