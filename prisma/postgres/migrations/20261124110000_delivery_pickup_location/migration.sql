-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "fulfillmentOrderIds" TEXT,
ADD COLUMN     "locationId" TEXT,
ADD COLUMN     "routingCompleteAt" TIMESTAMP(3);
