-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN     "testWebhooks" TEXT;

-- AlterTable
ALTER TABLE "CourierEvent" ADD COLUMN     "nextAttemptAt" TIMESTAMP(3),
ADD COLUMN     "triedIds" TEXT;

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "courierOrders" TEXT,
ADD COLUMN     "createSentAt" TIMESTAMP(3),
ADD COLUMN     "learnAfter" TIMESTAMP(3),
ADD COLUMN     "learnReads" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "CourierEvent_environmentId_state_nextAttemptAt_idx" ON "CourierEvent"("environmentId", "state", "nextAttemptAt");
