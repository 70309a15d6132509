-- AlterTable
ALTER TABLE "WebhookReceipt" ADD COLUMN "outcome" TEXT;

-- CreateTable
CREATE TABLE "DataRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "dataRequestId" TEXT,
    "customerId" TEXT,
    "report" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "exportedAt" DATETIME,
    CONSTRAINT "DataRequest_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "DataRequest_shopId_receivedAt_idx" ON "DataRequest"("shopId", "receivedAt");
