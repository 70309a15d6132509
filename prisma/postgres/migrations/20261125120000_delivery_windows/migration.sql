-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "scheduledFor" TIMESTAMP(3),
ADD COLUMN     "windowBypass" BOOLEAN NOT NULL DEFAULT false;
