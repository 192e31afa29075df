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

-- CreateIndex
CREATE UNIQUE INDEX "MediaServerHistory_accountId_kind_key" ON "MediaServerHistory"("accountId", "kind");

-- AddForeignKey
ALTER TABLE "MediaServerHistory" ADD CONSTRAINT "MediaServerHistory_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
