-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN "fulfillmentOrderIds" TEXT;
ALTER TABLE "Delivery" ADD COLUMN "locationId" TEXT;
ALTER TABLE "Delivery" ADD COLUMN "routingCompleteAt" DATETIME;
