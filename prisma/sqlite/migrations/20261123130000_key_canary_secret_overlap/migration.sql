-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN "webhookSecretPrevUntil" DATETIME;

-- CreateTable
CREATE TABLE "KeyCanary" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- A rotation in progress at upgrade keeps its previous secret for the default 24 h.
UPDATE "CourierEnvironment" SET "webhookSecretPrevUntil" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', '+1 day') WHERE "webhookSecretPrevEnc" IS NOT NULL;
