-- AlterTable
ALTER TABLE "Job" ADD COLUMN "orderingKey" TEXT;

-- CreateIndex
CREATE INDEX "Job_queue_orderingKey_state_idx" ON "Job"("queue", "orderingKey", "state");
