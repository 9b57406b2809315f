-- AlterTable
ALTER TABLE "Meter" ADD COLUMN     "dailyRollupFrom" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "MeterDailyUsage" (
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "meterId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "customerId" TEXT NOT NULL,
    "eventCount" BIGINT NOT NULL DEFAULT 0,
    "valueCount" BIGINT NOT NULL DEFAULT 0,
    "sum" DECIMAL(40,12) NOT NULL DEFAULT 0,
    "min" DECIMAL(40,12),
    "max" DECIMAL(40,12),

    CONSTRAINT "MeterDailyUsage_pkey" PRIMARY KEY ("meterId","day","customerId")
);

-- CreateTable
CREATE TABLE "MeterDailyUniqueValue" (
    "storeId" TEXT NOT NULL DEFAULT current_setting('billing.store_id'::text),
    "mode" "Mode" NOT NULL DEFAULT (current_setting('billing.mode'::text))::"Mode",
    "meterId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "MeterDailyUniqueValue_pkey" PRIMARY KEY ("meterId","day","value")
);

-- Both are updated in place by every ingested batch (a row per customer and period or day):
-- room on each page lets PostgreSQL update them without new index entries (HOT updates).
ALTER TABLE "MeterUsage" SET (fillfactor = 50);
ALTER TABLE "MeterDailyUsage" SET (fillfactor = 50);
