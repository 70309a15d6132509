-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN "slotEnd" DATETIME;
ALTER TABLE "Delivery" ADD COLUMN "slotKey" TEXT;
ALTER TABLE "Delivery" ADD COLUMN "slotStart" DATETIME;

-- CreateTable
CREATE TABLE "SlotCount" (
    "shopId" TEXT NOT NULL,
    "windowKey" TEXT NOT NULL,
    "slotStart" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "windowKey", "slotStart"),
    CONSTRAINT "SlotCount_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
