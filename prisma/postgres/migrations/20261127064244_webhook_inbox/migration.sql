-- CreateTable
CREATE TABLE "WebhookInbox" (
    "id" SERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "outcome" TEXT,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL,
    "processedAt" TIMESTAMP(3),

    CONSTRAINT "WebhookInbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "WebhookInbox_key_key" ON "WebhookInbox"("key");

-- CreateIndex
CREATE INDEX "WebhookInbox_state_nextAttemptAt_idx" ON "WebhookInbox"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookInbox_shop_idx" ON "WebhookInbox"("shop");
