-- CreateTable
CREATE TABLE "PendingImport" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "itemKey" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "year" INTEGER,
    "sourceId" TEXT,
    "ids" TEXT NOT NULL,
    "item" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastTriedAt" DATETIME,
    CONSTRAINT "PendingImport_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "PendingImport_accountId_lastTriedAt_idx" ON "PendingImport"("accountId", "lastTriedAt");

-- CreateIndex
CREATE UNIQUE INDEX "PendingImport_accountId_itemKey_key" ON "PendingImport"("accountId", "itemKey");
