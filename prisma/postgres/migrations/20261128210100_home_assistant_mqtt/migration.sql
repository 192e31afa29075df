-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "homeAssistantMqtt" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "MqttDevice" (
    "accountId" INTEGER NOT NULL,
    "deviceId" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "stateKey" TEXT NOT NULL DEFAULT '',
    "lastWatchEventId" INTEGER NOT NULL DEFAULT 0,
    "lastNotificationId" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MqttDevice_pkey" PRIMARY KEY ("accountId")
);

-- CreateIndex
CREATE UNIQUE INDEX "MqttDevice_deviceId_key" ON "MqttDevice"("deviceId");
