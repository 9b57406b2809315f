-- CreateEnum
CREATE TYPE "CreditAccountOwner" AS ENUM ('customer', 'store');

-- CreateEnum
CREATE TYPE "LedgerSide" AS ENUM ('debit', 'credit');

-- DropForeignKey
ALTER TABLE "CreditAccount" DROP CONSTRAINT "CreditAccount_customerId_fkey";

-- AlterTable
ALTER TABLE "Checkout" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "customPrice" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "CreditAccount" ADD COLUMN     "owner" "CreditAccountOwner" NOT NULL DEFAULT 'customer',
ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "customerId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "Customer" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "Discount" ADD COLUMN     "percentage" INTEGER,
ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "amount" DROP NOT NULL,
ALTER COLUMN "amount" SET DATA TYPE BIGINT;

-- A percentage discount kept its percent in "amount": it has a column of its own now.
UPDATE "Discount" SET "percentage" = "amount"::INTEGER, "amount" = NULL WHERE "type" = 'percentage';

-- AlterTable
ALTER TABLE "Event" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- Remembered answers of the old REST middleware cannot be replayed by the core (they expire within a day anyway).
DELETE FROM "IdempotencyRecord";

-- AlterTable
ALTER TABLE "IdempotencyRecord" DROP COLUMN "responseBody",
DROP COLUMN "responseStatus",
ADD COLUMN     "operation" TEXT NOT NULL,
ADD COLUMN     "outcome" JSONB NOT NULL,
ADD COLUMN     "status" INTEGER NOT NULL,
ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "LedgerEntry" ALTER COLUMN "side" SET DATA TYPE "LedgerSide" USING "side"::"LedgerSide";

-- AlterTable
ALTER TABLE "LedgerTransaction" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "License" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "Meter" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "Order" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "subTotal" SET DATA TYPE BIGINT,
ALTER COLUMN "discountAmount" SET DATA TYPE BIGINT,
ALTER COLUMN "taxAmount" SET DATA TYPE BIGINT,
ALTER COLUMN "amountDue" SET DATA TYPE BIGINT,
ALTER COLUMN "amountPaid" SET DATA TYPE BIGINT,
ALTER COLUMN "fxAmount" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "Product" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "price" SET DATA TYPE BIGINT,
ALTER COLUMN "suggestedPrice" SET DATA TYPE BIGINT,
ALTER COLUMN "trialPrice" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "Split" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "Subscription" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "Transaction" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode",
ALTER COLUMN "amount" SET DATA TYPE BIGINT,
ALTER COLUMN "amountPaid" SET DATA TYPE BIGINT,
ALTER COLUMN "discountAmount" SET DATA TYPE BIGINT,
ALTER COLUMN "taxAmount" SET DATA TYPE BIGINT,
ALTER COLUMN "refundedAmount" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "UsageEvent" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- AlterTable
ALTER TABLE "UsagePrice" ALTER COLUMN "cap" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- Child tables carry their store and environment too, copied from their parent row.
ALTER TABLE "ProductCustomField" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "ProductCustomField" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "Product" p WHERE p."id" = c."productId";
ALTER TABLE "ProductCustomField" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "ProductFeature" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "ProductFeature" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "Product" p WHERE p."id" = c."productId";
ALTER TABLE "ProductFeature" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "UsagePrice" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "UsagePrice" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "Product" p WHERE p."id" = c."productId";
ALTER TABLE "UsagePrice" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "DiscountProduct" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "DiscountProduct" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "Discount" p WHERE p."id" = c."discountId";
ALTER TABLE "DiscountProduct" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "SubscriptionItem" ADD COLUMN "storeId" TEXT;
UPDATE "SubscriptionItem" c SET "storeId" = p."storeId" FROM "Subscription" p WHERE p."id" = c."subscriptionId";
ALTER TABLE "SubscriptionItem" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "LicenseInstance" ADD COLUMN "storeId" TEXT;
UPDATE "LicenseInstance" c SET "storeId" = p."storeId" FROM "License" p WHERE p."id" = c."licenseId";
ALTER TABLE "LicenseInstance" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "LedgerEntry" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "LedgerEntry" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "LedgerTransaction" p WHERE p."id" = c."transactionId";
ALTER TABLE "LedgerEntry" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "SplitRecipient" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "SplitRecipient" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "Split" p WHERE p."id" = c."splitId";
ALTER TABLE "SplitRecipient" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "WebhookDelivery" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "WebhookDelivery" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "WebhookEndpoint" p WHERE p."id" = c."endpointId";
ALTER TABLE "WebhookDelivery" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

ALTER TABLE "DeliveryAttempt" ADD COLUMN "storeId" TEXT, ADD COLUMN "mode" "Mode";
UPDATE "DeliveryAttempt" c SET "storeId" = p."storeId", "mode" = p."mode" FROM "WebhookDelivery" p WHERE p."id" = c."deliveryId";
ALTER TABLE "DeliveryAttempt" ALTER COLUMN "storeId" SET NOT NULL, ALTER COLUMN "storeId" SET DEFAULT current_setting('billing.store_id'::text),
  ALTER COLUMN "mode" SET NOT NULL, ALTER COLUMN "mode" SET DEFAULT (current_setting('billing.mode'::text))::"Mode";

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "kind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StoreClock" (
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "offsetMs" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "StoreClock_pkey" PRIMARY KEY ("storeId","mode")
);

-- CreateIndex
CREATE INDEX "Job_status_nextAttemptAt_idx" ON "Job"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "Job_kind_subjectId_key" ON "Job"("kind", "subjectId");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_createdAt_idx" ON "IdempotencyRecord"("createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_storeId_mode_idx" ON "WebhookDelivery"("storeId", "mode");

-- AddForeignKey
ALTER TABLE "CreditAccount" ADD CONSTRAINT "CreditAccount_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE SET NULL ON UPDATE CASCADE;
