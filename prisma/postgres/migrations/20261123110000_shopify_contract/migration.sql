-- AlterTable
ALTER TABLE "WebhookReceipt" ADD COLUMN     "outcome" TEXT;

-- CreateTable
CREATE TABLE "DataRequest" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "dataRequestId" TEXT,
    "customerId" TEXT,
    "report" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "exportedAt" TIMESTAMP(3),

    CONSTRAINT "DataRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DataRequest_shopId_receivedAt_idx" ON "DataRequest"("shopId", "receivedAt");

-- AddForeignKey
ALTER TABLE "DataRequest" ADD CONSTRAINT "DataRequest_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
