// Shopify's published artifacts for tests (dev/shop-sim/contract.ts loads them).
export { sampleWebhookPayload as sampleWebhook, sampleWebhookBody, validateWebhookPayload, validateOperation, WEBHOOK_SCHEMA_VERSION } from '../../dev/shop-sim/contract.ts';
