-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "slotEnd" TIMESTAMP(3),
ADD COLUMN     "slotKey" TEXT,
ADD COLUMN     "slotStart" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "SlotCount" (
    "shopId" TEXT NOT NULL,
    "windowKey" TEXT NOT NULL,
    "slotStart" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SlotCount_pkey" PRIMARY KEY ("shopId","windowKey","slotStart")
);

-- AddForeignKey
ALTER TABLE "SlotCount" ADD CONSTRAINT "SlotCount_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
