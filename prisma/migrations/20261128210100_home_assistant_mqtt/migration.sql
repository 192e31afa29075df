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
CREATE UNIQUE INDEX "MqttDevice_deviceId_key" ON "MqttDevice"("deviceId");
