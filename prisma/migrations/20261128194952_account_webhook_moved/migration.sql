-- DropIndex
DROP INDEX "Notification_accountId_itemKey_key";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Account" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "webhookSecretEnc" TEXT,
    "feedVersion" INTEGER NOT NULL DEFAULT 0,
    "calendarVersion" INTEGER NOT NULL DEFAULT 0,
    "summaryProfile" TEXT NOT NULL DEFAULT 'full',
    "role" TEXT NOT NULL DEFAULT 'user',
    "passwordHash" TEXT,
    "passwordChangedAt" DATETIME,
    "oidcSubject" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Account" ("calendarVersion", "createdAt", "feedVersion", "id", "name", "oidcSubject", "passwordChangedAt", "passwordHash", "role", "summaryProfile", "timezone", "updatedAt", "webhookSecretEnc") SELECT "calendarVersion", "createdAt", "feedVersion", "id", "name", "oidcSubject", "passwordChangedAt", "passwordHash", "role", "summaryProfile", "timezone", "updatedAt", "webhookSecretEnc" FROM "Account";
DROP TABLE "Account";
ALTER TABLE "new_Account" RENAME TO "Account";
CREATE UNIQUE INDEX "Account_name_key" ON "Account"("name");
CREATE UNIQUE INDEX "Account_oidcSubject_key" ON "Account"("oidcSubject");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Notification_accountId_itemKey_idx" ON "Notification"("accountId", "itemKey");

-- CreateIndex
CREATE UNIQUE INDEX "Notification_channelId_itemKey_key" ON "Notification"("channelId", "itemKey");
