-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "billingAnchor" TIMESTAMPTZ(3),
ADD COLUMN     "billingPeriods" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "paymentMethodBrand" TEXT,
ADD COLUMN     "paymentMethodLast4" CHAR(4),
ADD COLUMN     "paymentMethodToken" TEXT,
ADD COLUMN     "taxCountry" CHAR(2),
ADD COLUMN     "taxId" TEXT;

-- AlterTable
ALTER TABLE "SubscriptionItem" ADD COLUMN     "unitPrice" BIGINT;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "attempt" INTEGER;

-- CreateIndex
CREATE UNIQUE INDEX "Transaction_subscriptionId_periodStart_attempt_key" ON "Transaction"("subscriptionId", "periodStart", "attempt");
