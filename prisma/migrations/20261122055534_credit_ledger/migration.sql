-- DropIndex
DROP INDEX "CreditAccount_storeId_mode_customerId_name_key";

-- AlterTable
ALTER TABLE "CreditAccount" ADD COLUMN     "nameKey" TEXT NOT NULL,
ADD COLUMN     "systemUnit" TEXT,
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "balanceAfter" BIGINT NOT NULL;

-- AlterTable
ALTER TABLE "LedgerTransaction" ADD COLUMN     "requestHash" TEXT NOT NULL,
ALTER COLUMN "reference" SET NOT NULL,
ALTER COLUMN "idempotencyKey" SET NOT NULL;

-- CreateIndex
CREATE INDEX "CreditAccount_customerId_idx" ON "CreditAccount"("customerId");

-- CreateIndex
CREATE UNIQUE INDEX "CreditAccount_storeId_mode_customerId_nameKey_key" ON "CreditAccount"("storeId", "mode", "customerId", "nameKey");

-- CreateIndex
CREATE UNIQUE INDEX "CreditAccount_storeId_mode_systemUnit_key" ON "CreditAccount"("storeId", "mode", "systemUnit");
