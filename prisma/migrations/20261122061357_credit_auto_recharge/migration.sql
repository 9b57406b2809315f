-- AlterTable
ALTER TABLE "CreditAccount" ADD COLUMN     "rechargeAmount" BIGINT,
ADD COLUMN     "rechargeProductId" TEXT,
ADD COLUMN     "rechargeThreshold" BIGINT;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "rechargeAccountId" TEXT;

-- CreateIndex
CREATE INDEX "Transaction_rechargeAccountId_idx" ON "Transaction"("rechargeAccountId");
