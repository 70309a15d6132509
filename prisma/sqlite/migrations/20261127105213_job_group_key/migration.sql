-- AlterTable
ALTER TABLE "Job" ADD COLUMN "groupKey" TEXT;

-- CreateIndex
CREATE INDEX "Job_queue_state_groupKey_runAt_idx" ON "Job"("queue", "state", "groupKey", "runAt");
