-- CreateTable
CREATE TABLE "PendingImport" (
    "id" SERIAL NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastTriedAt" TIMESTAMP(3),

    CONSTRAINT "PendingImport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PendingImport_accountId_lastTriedAt_idx" ON "PendingImport"("accountId", "lastTriedAt");

-- CreateIndex
CREATE UNIQUE INDEX "PendingImport_accountId_itemKey_key" ON "PendingImport"("accountId", "itemKey");

-- AddForeignKey
ALTER TABLE "PendingImport" ADD CONSTRAINT "PendingImport_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
