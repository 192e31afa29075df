-- CreateTable
CREATE TABLE "MediaServerConnection" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "encrypted" TEXT NOT NULL,
    "users" TEXT NOT NULL DEFAULT '[]',
    "manualMarks" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedAt" DATETIME,
    "lastUsedAt" DATETIME,
    CONSTRAINT "MediaServerConnection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MediaServerDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "event" TEXT NOT NULL,
    "serverUser" TEXT,
    "result" TEXT NOT NULL,
    "detail" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "eventKey" TEXT,
    "pending" TEXT,
    "lastTriedAt" DATETIME,
    CONSTRAINT "MediaServerDelivery_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerConnection_digest_key" ON "MediaServerConnection"("digest");

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerConnection_accountId_source_key" ON "MediaServerConnection"("accountId", "source");

-- CreateIndex
CREATE INDEX "MediaServerDelivery_accountId_id_idx" ON "MediaServerDelivery"("accountId", "id");

-- CreateIndex
CREATE INDEX "MediaServerDelivery_accountId_result_idx" ON "MediaServerDelivery"("accountId", "result");

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerDelivery_accountId_eventKey_key" ON "MediaServerDelivery"("accountId", "eventKey");
