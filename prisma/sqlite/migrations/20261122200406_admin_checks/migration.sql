-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN "connectionCheck" TEXT;
ALTER TABLE "CourierEnvironment" ADD COLUMN "webhookCheck" TEXT;
