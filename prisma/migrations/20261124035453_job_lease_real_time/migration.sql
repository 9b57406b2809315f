-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3);
