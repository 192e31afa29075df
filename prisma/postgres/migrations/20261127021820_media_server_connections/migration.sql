-- CreateTable
CREATE TABLE "MediaServerConnection" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "encrypted" TEXT NOT NULL,
    "users" TEXT NOT NULL DEFAULT '[]',
    "manualMarks" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "MediaServerConnection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MediaServerDelivery" (
    "id" SERIAL NOT NULL,
    "accountId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "event" TEXT NOT NULL,
    "serverUser" TEXT,
    "result" TEXT NOT NULL,
    "detail" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "eventKey" TEXT,
    "pending" TEXT,
    "lastTriedAt" TIMESTAMP(3),

    CONSTRAINT "MediaServerDelivery_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "MediaServerConnection" ADD CONSTRAINT "MediaServerConnection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MediaServerDelivery" ADD CONSTRAINT "MediaServerDelivery_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
