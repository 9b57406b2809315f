-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "name" TEXT;
