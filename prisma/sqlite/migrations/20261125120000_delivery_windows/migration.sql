-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN "scheduledFor" DATETIME;
ALTER TABLE "Delivery" ADD COLUMN "windowBypass" BOOLEAN NOT NULL DEFAULT false;
