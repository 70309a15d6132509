-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN "fulfillmentGeneration" INTEGER;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DeliveryEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "deliveryId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT,
    "applied" BOOLEAN NOT NULL DEFAULT true,
    "message" TEXT,
    "source" TEXT NOT NULL,
    "courierEventId" TEXT,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "occurredAt" DATETIME NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DeliveryEvent_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_DeliveryEvent" ("applied", "courierEventId", "deliveryId", "id", "kind", "message", "occurredAt", "receivedAt", "source", "status") SELECT "applied", "courierEventId", "deliveryId", "id", "kind", "message", "occurredAt", "receivedAt", "source", "status" FROM "DeliveryEvent";
DROP TABLE "DeliveryEvent";
ALTER TABLE "new_DeliveryEvent" RENAME TO "DeliveryEvent";
CREATE INDEX "DeliveryEvent_deliveryId_occurredAt_idx" ON "DeliveryEvent"("deliveryId", "occurredAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Backfill: a fulfillment written before this shows the current generation's tracking, and earlier
-- timeline lines are counted as the current generation's (what the sync read before this change).
UPDATE "Delivery" SET "fulfillmentGeneration" = "generation" WHERE "fulfillmentId" IS NOT NULL;
UPDATE "DeliveryEvent" SET "generation" = (SELECT d."generation" FROM "Delivery" d WHERE d."id" = "DeliveryEvent"."deliveryId");
