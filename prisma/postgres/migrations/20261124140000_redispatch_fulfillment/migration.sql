-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "fulfillmentGeneration" INTEGER;

-- AlterTable
ALTER TABLE "DeliveryEvent" ADD COLUMN     "generation" INTEGER NOT NULL DEFAULT 1;

-- Backfill: a fulfillment written before this shows the current generation's tracking, and earlier
-- timeline lines are counted as the current generation's (what the sync read before this change).
UPDATE "Delivery" SET "fulfillmentGeneration" = "generation" WHERE "fulfillmentId" IS NOT NULL;
UPDATE "DeliveryEvent" SET "generation" = (SELECT d."generation" FROM "Delivery" d WHERE d."id" = "DeliveryEvent"."deliveryId");
