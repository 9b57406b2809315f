-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "pendingProrationAmount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "pendingProrationDiscount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "pendingProrationTax" BIGINT NOT NULL DEFAULT 0;
