-- CreateTable
CREATE TABLE "MutedShow" (
    "accountId" INTEGER NOT NULL,
    "showId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MutedShow_pkey" PRIMARY KEY ("accountId","showId")
);

-- CreateIndex
CREATE INDEX "MutedShow_showId_idx" ON "MutedShow"("showId");

-- AddForeignKey
ALTER TABLE "MutedShow" ADD CONSTRAINT "MutedShow_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MutedShow" ADD CONSTRAINT "MutedShow_showId_fkey" FOREIGN KEY ("showId") REFERENCES "Show"("id") ON DELETE CASCADE ON UPDATE CASCADE;
