// Shopify's published artifacts for tests (web/shop-sim/contract.ts loads them).
export { sampleWebhookPayload as sampleWebhook, sampleWebhookBody, validateWebhookPayload, validateOperation, WEBHOOK_SCHEMA_VERSION } from '../../web/shop-sim/contract.ts';
