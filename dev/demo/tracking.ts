// Demo step: the customer tracking page of a delivered order. The URL is the
// one the app wrote into the Shopify fulfillment (no tracking URL template is
// set, so it is the app's own page); the step opens it and expects a 200.
import type { OrderState } from './merchant.ts';

export async function trackingPageStep(states: OrderState[], out: (line: string) => void): Promise<boolean> {
  const delivered = states.find((st) => st.delivery?.status === 'DELIVERED' && st.shopify.fulfillments[0]?.trackingInfo.url);
  const url = delivered?.shopify.fulfillments[0]!.trackingInfo.url;
  if (!delivered || !url) {
    out('   Tracking page: no delivered order with a tracking URL (expected one)');
    return false;
  }
  out('');
  const r = await fetch(url).catch((e: Error) => ({ status: 0, text: async () => e.message }));
  const body = await r.text();
  const ok = r.status === 200 && body.includes('<h1>Delivered</h1>');
  out(`   Tracking page of ${delivered.shopify.name} (the Shopify fulfillment's tracking URL, for the customer): ${url}`);
  out(`     → HTTP ${r.status}${ok ? ', shows "Delivered"' : ' (expected 200 showing "Delivered")'}`);
  return ok;
}
