// The requested cost of every Admin GraphQL operation in operations.ts, as Shopify
// calculates it (shopify.dev "GraphQL Admin API rate limits"): what the pacer
// (pacer.ts) waits for before sending one. test/unit/shop-sim-cost.test.ts keeps
// this table equal to the simulator's calculation from the pinned schema. A cost
// Shopify reports in an answer replaces the declared one for that process.
export const OPERATION_COST: Record<string, number> = {
  BookingWrite: 20,
  // bookingsWriteDocument(n): one metafieldsSet and n tagsAdd.
  BookingsWrite2: 30,
  BookingsWrite3: 40,
  BookingsWrite4: 50,
  BookingsWrite5: 60,
  BookingsWrite6: 70,
  CarrierServiceCreate: 10,
  CarrierServiceUpdate: 10,
  FlowTriggerReceive: 10,
  FulfillmentCancel: 10,
  FulfillmentCreate: 10,
  FulfillmentEventCreate: 10,
  FulfillmentOrderOrder: 1,
  FulfillmentTrackingInfoUpdate: 10,
  MetafieldsSet: 10,
  OrderForDispatch: 113,
  OrderFulfillmentOrders: 553,
  OrderFulfillmentOrdersForDispatch: 28,
  RatesSetup: 56,
  ShopLocations: 102,
  ShopProfile: 4,
};
