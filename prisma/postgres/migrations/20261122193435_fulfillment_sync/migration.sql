-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "reconciledAt" TIMESTAMP(3),
ADD COLUMN     "shopifyRank" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "syncLockedUntil" TIMESTAMP(3);
