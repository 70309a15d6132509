-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN     "connectionCheck" TEXT,
ADD COLUMN     "webhookCheck" TEXT;
