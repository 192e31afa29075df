-- AlterTable
ALTER TABLE "Show" ADD COLUMN     "ownerAccountId" INTEGER;

-- AlterTable
ALTER TABLE "Movie" ADD COLUMN     "ownerAccountId" INTEGER;

-- AlterTable
ALTER TABLE "Game" ADD COLUMN     "ownerAccountId" INTEGER;

-- CreateIndex
CREATE INDEX "Show_ownerAccountId_idx" ON "Show"("ownerAccountId");

-- CreateIndex
CREATE INDEX "Movie_ownerAccountId_idx" ON "Movie"("ownerAccountId");

-- CreateIndex
CREATE INDEX "Game_ownerAccountId_idx" ON "Game"("ownerAccountId");

-- AddForeignKey
ALTER TABLE "Show" ADD CONSTRAINT "Show_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Movie" ADD CONSTRAINT "Movie_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Game" ADD CONSTRAINT "Game_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
