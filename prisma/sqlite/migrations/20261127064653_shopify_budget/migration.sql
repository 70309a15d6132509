-- CreateTable
CREATE TABLE "ShopifyBudget" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "available" REAL NOT NULL,
    "maximum" REAL NOT NULL,
    "restoreRate" REAL NOT NULL,
    "at" BIGINT NOT NULL
);
