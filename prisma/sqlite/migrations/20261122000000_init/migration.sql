-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "isOnline" BOOLEAN NOT NULL DEFAULT false,
    "scope" TEXT,
    "expires" DATETIME,
    "accessToken" TEXT NOT NULL,
    "userId" BIGINT,
    "firstName" TEXT,
    "lastName" TEXT,
    "email" TEXT,
    "accountOwner" BOOLEAN,
    "locale" TEXT,
    "collaborator" BOOLEAN,
    "emailVerified" BOOLEAN,
    "refreshToken" TEXT,
    "refreshTokenExpires" DATETIME
);

-- CreateTable
CREATE TABLE "Shop" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT NOT NULL,
    "installedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uninstalledAt" DATETIME,
    "settings" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CourierEnvironment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "baseUrl" TEXT,
    "clientId" TEXT,
    "clientSecretEnc" TEXT,
    "webhookSecretEnc" TEXT,
    "webhookSecretPrevEnc" TEXT,
    "pickupStoreId" TEXT,
    "locationStores" TEXT NOT NULL DEFAULT '{}',
    "endpointId" TEXT NOT NULL,
    "lastWebhookAt" DATETIME,
    "lastRejectionAt" DATETIME,
    "lastRejectionReason" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "CourierEnvironment_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Delivery" (
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
    "writebackPending" BOOLEAN NOT NULL DEFAULT false,
    "dispatchedAt" DATETIME,
    "redactedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Delivery_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CourierRef" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "deliveryId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "CourierRef_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DeliveryEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "deliveryId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT,
    "applied" BOOLEAN NOT NULL DEFAULT true,
    "message" TEXT,
    "source" TEXT NOT NULL,
    "courierEventId" TEXT,
    "occurredAt" DATETIME NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DeliveryEvent_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CourierEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "environmentId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "deliveryRef" TEXT,
    "status" TEXT,
    "occurredAt" DATETIME,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "deliveryId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" DATETIME,
    CONSTRAINT "CourierEvent_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "CourierEnvironment" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookReceipt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "webhookId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "queue" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "singletonKey" TEXT,
    "runAt" DATETIME NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL,
    "lockedBy" TEXT,
    "lockedUntil" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Session_shop_idx" ON "Session"("shop");

-- CreateIndex
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");

-- CreateIndex
CREATE UNIQUE INDEX "CourierEnvironment_endpointId_key" ON "CourierEnvironment"("endpointId");

-- CreateIndex
CREATE UNIQUE INDEX "CourierEnvironment_shopId_environment_key" ON "CourierEnvironment"("shopId", "environment");

-- CreateIndex
CREATE INDEX "Delivery_shopId_status_idx" ON "Delivery"("shopId", "status");

-- CreateIndex
CREATE INDEX "Delivery_shopId_createdAt_idx" ON "Delivery"("shopId", "createdAt");

-- CreateIndex
CREATE INDEX "Delivery_status_lastEventAt_idx" ON "Delivery"("status", "lastEventAt");

-- CreateIndex
CREATE UNIQUE INDEX "Delivery_shopId_shopifyOrderId_key" ON "Delivery"("shopId", "shopifyOrderId");

-- CreateIndex
CREATE INDEX "CourierRef_deliveryId_idx" ON "CourierRef"("deliveryId");

-- CreateIndex
CREATE UNIQUE INDEX "CourierRef_shopId_environment_value_kind_key" ON "CourierRef"("shopId", "environment", "value", "kind");

-- CreateIndex
CREATE INDEX "DeliveryEvent_deliveryId_occurredAt_idx" ON "DeliveryEvent"("deliveryId", "occurredAt");

-- CreateIndex
CREATE INDEX "CourierEvent_state_receivedAt_idx" ON "CourierEvent"("state", "receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "CourierEvent_environmentId_eventId_key" ON "CourierEvent"("environmentId", "eventId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookReceipt_webhookId_key" ON "WebhookReceipt"("webhookId");

-- CreateIndex
CREATE INDEX "WebhookReceipt_shop_idx" ON "WebhookReceipt"("shop");

-- CreateIndex
CREATE INDEX "Job_state_queue_runAt_idx" ON "Job"("state", "queue", "runAt");

-- CreateIndex
CREATE INDEX "Job_singletonKey_idx" ON "Job"("singletonKey");

