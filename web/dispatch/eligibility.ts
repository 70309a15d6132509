// Should this paid order become a delivery? Pure: order + settings → decision.
// A "no" is recorded as SKIPPED with the reason, so the merchant sees why
// nothing happened. Rules run in order; the first that refuses wins. These are
// the cheap rules on the orders/paid payload; the dispatch job has the last word.
import type { Settings } from '../settings/schema.ts';
import type { OrderSnapshot } from '../order/snapshot.ts';
import type { Problem } from './status.ts';
import { liveTestOrder } from '../lifecycle/machine.ts';

export type Eligibility = { dispatch: true } | ({ dispatch: false } & Problem);

/**
 * @param manual the merchant asked for this order explicitly (dispatch now):
 *   the auto-dispatch switch and the shipping-method and country rules do not apply.
 */
export function decideEligibility(order: OrderSnapshot, settings: Settings, opts: { manual?: boolean } = {}): Eligibility {
  const manual = opts.manual ?? false;
  const skip = (code: Problem['code'], message: string): Eligibility => ({ dispatch: false, code, message });

  if (order.cancelled_at) return skip('cancelled', 'Order was cancelled in Shopify');
  const testOrder = liveTestOrder(order.test, settings.activeEnvironment);
  if (testOrder) return skip(testOrder.code, testOrder.message);
  if (order.test && !settings.eligibility.dispatchTestOrders) {
    return skip('test_order', 'Test orders are not dispatched (see dispatch rules)');
  }
  if (order.line_items.length > 0 && !order.line_items.some((l) => l.requires_shipping)) {
    return skip('nothing_to_ship', 'Nothing to ship: no item on the order needs shipping');
  }
  // Local pickup, holds and schedules come from the fulfillment orders at dispatch time (fulfillment-orders.ts), not from titles.
  const lines = order.shipping_lines;
  if (!manual) {
    const wanted = settings.eligibility.shippingLines.map((t) => t.toLowerCase());
    if (wanted.length > 0) {
      const matches = lines.some((l) => [l.title, l.code].some((v) => v && wanted.includes(v.toLowerCase())));
      if (!matches) {
        const used = lines.map((l) => l.title ?? l.code).filter(Boolean).join(', ') || 'none';
        return skip('shipping_method', `Shipping method '${used}' is not one of your same-day methods (${settings.eligibility.shippingLines.join(', ')})`);
      }
    }
    const countries = settings.eligibility.countries;
    const country = order.shipping_address?.country_code?.toUpperCase();
    if (country && countries.length > 0 && !countries.includes(country)) {
      return skip('country', `Ships to ${country}; your dispatch rules allow ${countries.join(', ')}`);
    }
    if (!settings.autoDispatch) return skip('auto_dispatch_off', 'Auto-dispatch is off; use Dispatch now to send this order');
  }
  return { dispatch: true };
}
