-- CreateTable
CREATE TABLE "ShopifyBudget" (
    "shop" TEXT NOT NULL,
    "available" DOUBLE PRECISION NOT NULL,
    "maximum" DOUBLE PRECISION NOT NULL,
    "restoreRate" DOUBLE PRECISION NOT NULL,
    "at" BIGINT NOT NULL,

    CONSTRAINT "ShopifyBudget_pkey" PRIMARY KEY ("shop")
);
