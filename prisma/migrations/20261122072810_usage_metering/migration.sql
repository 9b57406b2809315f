-- DropForeignKey
ALTER TABLE "UsageEvent" DROP CONSTRAINT "UsageEvent_customerId_fkey";

-- Meters and usage events had no API before this migration; rows written some other way get
-- what the new constraints need.
UPDATE "Meter" SET "filter" = '{"conjunction": "and", "clauses": []}' WHERE "filter" IS NULL;
UPDATE "UsageEvent" SET "idempotencyKey" = "id" WHERE "idempotencyKey" IS NULL;

-- AlterTable
ALTER TABLE "Meter" ADD COLUMN     "usageSeenAt" TIMESTAMPTZ(3),
ALTER COLUMN "filter" SET NOT NULL,
ALTER COLUMN "filter" SET DEFAULT '{"conjunction": "and", "clauses": []}';

-- AlterTable
ALTER TABLE "UsageEvent" ALTER COLUMN "customerId" SET NOT NULL,
ALTER COLUMN "idempotencyKey" SET NOT NULL;

-- CreateTable
CREATE TABLE "MeterUsage" (
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "meterId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "periodStart" TIMESTAMPTZ(3) NOT NULL,
    "periodEnd" TIMESTAMPTZ(3) NOT NULL,
    "eventCount" BIGINT NOT NULL DEFAULT 0,
    "valueCount" BIGINT NOT NULL DEFAULT 0,
    "sum" DECIMAL(40,12) NOT NULL DEFAULT 0,
    "min" DECIMAL(40,12),
    "max" DECIMAL(40,12),
    "uniqueCount" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MeterUsage_pkey" PRIMARY KEY ("meterId","customerId","periodStart")
);

-- CreateTable
CREATE TABLE "MeterUniqueValue" (
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "meterId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "periodStart" TIMESTAMPTZ(3) NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "MeterUniqueValue_pkey" PRIMARY KEY ("meterId","customerId","periodStart","value")
);

-- CreateIndex
CREATE UNIQUE INDEX "Meter_storeId_mode_name_key" ON "Meter"("storeId", "mode", "name");

-- CreateIndex
CREATE INDEX "UsageEvent_storeId_mode_customerId_eventName_timestamp_idx" ON "UsageEvent"("storeId", "mode", "customerId", "eventName", "timestamp");

-- AddForeignKey
ALTER TABLE "UsageEvent" ADD CONSTRAINT "UsageEvent_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MeterUsage" ADD CONSTRAINT "MeterUsage_meterId_fkey" FOREIGN KEY ("meterId") REFERENCES "Meter"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
