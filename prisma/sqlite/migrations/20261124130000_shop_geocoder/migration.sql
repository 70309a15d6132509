-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "geocoderKeyEnc" TEXT;
ALTER TABLE "Shop" ADD COLUMN "geocoderProvider" TEXT;
ALTER TABLE "Shop" ADD COLUMN "geocoderUrl" TEXT;
