-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN     "affiliateCode" TEXT,
ADD COLUMN     "apiKeyId" TEXT,
ADD COLUMN     "buyer" JSONB,
ADD COLUMN     "discountReserved" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "extraFields" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "paymentAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "processingStartedAt" TIMESTAMPTZ(3),
ADD COLUMN     "quote" JSONB;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "processorReference" TEXT;

-- CreateTable
CREATE TABLE "ServiceSetting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServiceSetting_pkey" PRIMARY KEY ("key")
);
