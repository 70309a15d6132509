-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "geocoderKeyEnc" TEXT,
ADD COLUMN     "geocoderProvider" TEXT,
ADD COLUMN     "geocoderUrl" TEXT;
