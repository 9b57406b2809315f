-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "scheduledAction" TEXT;
