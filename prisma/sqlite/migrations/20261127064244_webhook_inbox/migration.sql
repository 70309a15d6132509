-- CreateTable
CREATE TABLE "WebhookInbox" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "outcome" TEXT,
    "nextAttemptAt" DATETIME NOT NULL,
    "receivedAt" DATETIME NOT NULL,
    "processedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "WebhookInbox_key_key" ON "WebhookInbox"("key");

-- CreateIndex
CREATE INDEX "WebhookInbox_state_nextAttemptAt_idx" ON "WebhookInbox"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookInbox_shop_idx" ON "WebhookInbox"("shop");
