-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN "testWebhooks" TEXT;

-- AlterTable
ALTER TABLE "CourierEvent" ADD COLUMN "nextAttemptAt" DATETIME;
ALTER TABLE "CourierEvent" ADD COLUMN "triedIds" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Delivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "shopifyOrderId" TEXT NOT NULL,
    "orderName" TEXT,
    "environment" TEXT,
    "status" TEXT NOT NULL,
    "reasonCode" TEXT,
    "reason" TEXT,
    "orderJson" TEXT NOT NULL,
    "customerId" TEXT,
    "overridesJson" TEXT NOT NULL DEFAULT '{}',
    "generation" INTEGER NOT NULL DEFAULT 1,
    "idempotencyKey" TEXT,
    "requestBody" TEXT,
    "responseBody" TEXT,
    "requestId" TEXT,
    "courierOrderId" TEXT,
    "courierOrderStatus" TEXT,
    "dispatchJobId" TEXT,
    "courierDeliveryId" TEXT,
    "deliveryPrice" TEXT,
    "currency" TEXT,
    "tries" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "courierStatus" TEXT,
    "courierStatusRank" INTEGER NOT NULL DEFAULT 0,
    "courierStatusAt" DATETIME,
    "lastEventAt" DATETIME,
    "fulfillmentId" TEXT,
    "shopifyStatus" TEXT,
    "shopifyRank" INTEGER NOT NULL DEFAULT 0,
    "syncLockedUntil" DATETIME,
    "reconciledAt" DATETIME,
    "writebackPending" BOOLEAN NOT NULL DEFAULT false,
    "dispatchedAt" DATETIME,
    "redactedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "createSentAt" DATETIME,
    "courierOrders" TEXT,
    "learnAfter" DATETIME,
    "learnReads" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "Delivery_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Delivery" ("courierDeliveryId", "courierOrderId", "courierOrderStatus", "courierStatus", "courierStatusAt", "courierStatusRank", "createdAt", "currency", "customerId", "deliveryPrice", "dispatchJobId", "dispatchedAt", "environment", "fulfillmentId", "generation", "id", "idempotencyKey", "lastError", "lastEventAt", "orderJson", "orderName", "overridesJson", "reason", "reasonCode", "reconciledAt", "redactedAt", "requestBody", "requestId", "responseBody", "shopId", "shopifyOrderId", "shopifyRank", "shopifyStatus", "status", "syncLockedUntil", "tries", "updatedAt", "writebackPending") SELECT "courierDeliveryId", "courierOrderId", "courierOrderStatus", "courierStatus", "courierStatusAt", "courierStatusRank", "createdAt", "currency", "customerId", "deliveryPrice", "dispatchJobId", "dispatchedAt", "environment", "fulfillmentId", "generation", "id", "idempotencyKey", "lastError", "lastEventAt", "orderJson", "orderName", "overridesJson", "reason", "reasonCode", "reconciledAt", "redactedAt", "requestBody", "requestId", "responseBody", "shopId", "shopifyOrderId", "shopifyRank", "shopifyStatus", "status", "syncLockedUntil", "tries", "updatedAt", "writebackPending" FROM "Delivery";
DROP TABLE "Delivery";
ALTER TABLE "new_Delivery" RENAME TO "Delivery";
CREATE INDEX "Delivery_shopId_status_idx" ON "Delivery"("shopId", "status");
CREATE INDEX "Delivery_shopId_createdAt_idx" ON "Delivery"("shopId", "createdAt");
CREATE INDEX "Delivery_status_lastEventAt_idx" ON "Delivery"("status", "lastEventAt");
CREATE UNIQUE INDEX "Delivery_shopId_shopifyOrderId_key" ON "Delivery"("shopId", "shopifyOrderId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "CourierEvent_environmentId_state_nextAttemptAt_idx" ON "CourierEvent"("environmentId", "state", "nextAttemptAt");
