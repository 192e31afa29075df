-- CreateTable
CREATE TABLE "Session" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "userAgent" TEXT,
    "address" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    CONSTRAINT "Session_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SetupLink" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "digest" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "createdById" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME
);

-- AlterTable (plain ADD COLUMNs: the Account table keeps its rows and every key pointing at it)
ALTER TABLE "Account" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'user';
ALTER TABLE "Account" ADD COLUMN "passwordHash" TEXT;
ALTER TABLE "Account" ADD COLUMN "passwordChangedAt" DATETIME;
ALTER TABLE "Account" ADD COLUMN "oidcSubject" TEXT;
CREATE UNIQUE INDEX "Account_oidcSubject_key" ON "Account"("oidcSubject");

-- An existing installation's first account becomes its administrator (README "Accounts").
UPDATE "Account" SET "role" = 'admin' WHERE "id" = (SELECT MIN("id") FROM "Account");

-- CreateIndex
CREATE UNIQUE INDEX "Session_digest_key" ON "Session"("digest");

-- CreateIndex
CREATE INDEX "Session_accountId_idx" ON "Session"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "SetupLink_digest_key" ON "SetupLink"("digest");
