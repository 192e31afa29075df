-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "homeAssistantMqtt" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "MediaServerHistory" (
    "id" SERIAL NOT NULL,
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
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MediaServerHistory_pkey" PRIMARY KEY ("id")
);

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
CREATE UNIQUE INDEX "MediaServerHistory_accountId_kind_key" ON "MediaServerHistory"("accountId", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "MqttDevice_deviceId_key" ON "MqttDevice"("deviceId");

-- AddForeignKey
ALTER TABLE "MediaServerHistory" ADD CONSTRAINT "MediaServerHistory_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
