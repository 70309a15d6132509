-- AlterTable
ALTER TABLE "CourierEnvironment" ADD COLUMN     "webhookSecretPrevUntil" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "KeyCanary" (
    "id" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KeyCanary_pkey" PRIMARY KEY ("id")
);

-- A rotation in progress at upgrade keeps its previous secret for the default 24 h.
UPDATE "CourierEnvironment" SET "webhookSecretPrevUntil" = CURRENT_TIMESTAMP + INTERVAL '1 day' WHERE "webhookSecretPrevEnc" IS NOT NULL;
