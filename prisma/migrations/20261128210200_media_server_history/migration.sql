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

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerHistory_accountId_kind_key" ON "MediaServerHistory"("accountId", "kind");
