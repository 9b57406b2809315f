-- CreateTable
CREATE TABLE "SplitAllocation" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "transactionId" TEXT NOT NULL,
    "splitId" TEXT NOT NULL,
    "recipientId" TEXT NOT NULL,
    "recipientStoreId" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "refundId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SplitAllocation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SplitAllocation_transactionId_idx" ON "SplitAllocation"("transactionId");

-- CreateIndex
CREATE INDEX "SplitAllocation_recipientStoreId_mode_id_idx" ON "SplitAllocation"("recipientStoreId", "mode", "id");
-- AddForeignKey
ALTER TABLE "SplitAllocation" ADD CONSTRAINT "SplitAllocation_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "Transaction"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
