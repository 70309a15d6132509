-- CreateTable
CREATE TABLE "FlowTriggerUsage" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "definitionId" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "changedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FlowTriggerUsage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FlowTriggerEvent" (
    "id" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "snapshot" TEXT,
    "outcome" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FlowTriggerEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FlowActionRun" (
    "id" TEXT NOT NULL,
    "actionRunId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'received',
    "httpStatus" INTEGER,
    "code" TEXT,
    "message" TEXT,
    "deliveryId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FlowActionRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "FlowTriggerUsage_shopId_trigger_idx" ON "FlowTriggerUsage"("shopId", "trigger");

-- CreateIndex
CREATE UNIQUE INDEX "FlowTriggerUsage_shopId_definitionId_key" ON "FlowTriggerUsage"("shopId", "definitionId");

-- CreateIndex
CREATE INDEX "FlowTriggerEvent_state_createdAt_idx" ON "FlowTriggerEvent"("state", "createdAt");

-- CreateIndex
CREATE INDEX "FlowTriggerEvent_deliveryId_idx" ON "FlowTriggerEvent"("deliveryId");

-- CreateIndex
CREATE UNIQUE INDEX "FlowActionRun_actionRunId_key" ON "FlowActionRun"("actionRunId");

-- CreateIndex
CREATE INDEX "FlowActionRun_shopId_createdAt_idx" ON "FlowActionRun"("shopId", "createdAt");

-- AddForeignKey
ALTER TABLE "FlowTriggerUsage" ADD CONSTRAINT "FlowTriggerUsage_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FlowTriggerEvent" ADD CONSTRAINT "FlowTriggerEvent_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FlowActionRun" ADD CONSTRAINT "FlowActionRun_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
