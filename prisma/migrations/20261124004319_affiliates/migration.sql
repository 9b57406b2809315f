-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN     "affiliateId" TEXT;

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "affiliateId" TEXT;

-- CreateTable
CREATE TABLE "AffiliateProgram" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "commissionRate" INTEGER NOT NULL DEFAULT 2000,
    "holdDays" INTEGER NOT NULL DEFAULT 30,
    "cookieDays" INTEGER NOT NULL DEFAULT 30,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AffiliateProgram_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AffiliateInvite" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "programId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "affiliateId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AffiliateInvite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Affiliate" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "programId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "referralCode" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Affiliate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AffiliateCommission" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "affiliateId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "refundId" TEXT,
    "paidAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AffiliateCommission_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AffiliateProgram_storeId_mode_key" ON "AffiliateProgram"("storeId", "mode");

-- CreateIndex
CREATE INDEX "AffiliateInvite_storeId_mode_id_idx" ON "AffiliateInvite"("storeId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Affiliate_referralCode_key" ON "Affiliate"("referralCode");

-- CreateIndex
CREATE INDEX "Affiliate_storeId_mode_id_idx" ON "Affiliate"("storeId", "mode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Affiliate_storeId_mode_email_key" ON "Affiliate"("storeId", "mode", "email");

-- CreateIndex
CREATE INDEX "AffiliateCommission_affiliateId_id_idx" ON "AffiliateCommission"("affiliateId", "id");

-- CreateIndex
CREATE INDEX "AffiliateCommission_transactionId_idx" ON "AffiliateCommission"("transactionId");

-- CreateIndex
CREATE INDEX "Order_affiliate_idx" ON "Order"("affiliate");

-- AddForeignKey
ALTER TABLE "AffiliateCommission" ADD CONSTRAINT "AffiliateCommission_affiliateId_fkey" FOREIGN KEY ("affiliateId") REFERENCES "Affiliate"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
