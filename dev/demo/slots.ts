// Demo step: delivery slots (docs/delivery-slots.md). The cart block's app proxy (through the
// storefront stand-in, which signs like Shopify's) offers slots; the customer picks tomorrow's
// first; the paid order is SCHEDULED for the slot's start minus the courier's lead time; the
// app's clock (dev/clock.ts) is moved there and the order is booked.
import { moveFileClock } from '../clock.ts';
import { startStorefront } from '../shop-sim/storefront.ts';
import { loadConfig } from '../../web/config/env.ts';
import { shopDomain, waitForDelivery, type AppDelivery } from './merchant.ts';
import type { Stack } from './stack.ts';

const ZONE = 'Africa/Johannesburg';
const DAY = { open: '08:00', close: '17:00' };
interface ProxySlots { days: Array<{ date: string; slots: Array<{ value: string; start: string; end: string; remaining: number | null; full: boolean }> }> }

/** Runs the step and prints it; true when the order was scheduled for its slot and booked then. */
export async function demoDeliverySlots(stack: Stack, shop: string, out: (line: string) => void): Promise<boolean> {
  const clockFile = stack.appEnv.DEV_CLOCK_FILE;
  if (!clockFile) return out('   (skipped: the app runs without a movable clock)'), true;
  const domain = shopDomain(shop);
  const window = { timeZone: ZONE, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null, closures: [], prepMinutes: 30 };
  const slots = { enabled: true, slotMinutes: 120, daysAhead: 2, capacity: 3, leadMinutes: 60 };
  await stack.cliOk(['configure', domain, '--settings', JSON.stringify({ windows: { default: window }, slots })]);
  out(`   slots: 2 h from the window (${ZONE}, 08:00–17:00, 30 min preparation), today and 2 days ahead, 3 orders per slot, booked 60 min before`);
  const store = await startStorefront({ shop: domain, appUrl: stack.urls.app, apiSecret: loadConfig(stack.appEnv).shopify.apiSecret });
  let ok = false;
  try {
    const offer = (await (await fetch(`${store.url}/apps/same-day/slots`)).json()) as ProxySlots;
    const day = offer.days[1] ?? offer.days[0];
    const slot = day?.slots.find((x) => !x.full);
    if (!day || !slot) return out('   the app proxy offered no slot'), false;
    out(`   the cart block asks /apps/same-day/slots (signed app proxy): ${offer.days.map((d) => `${d.date} ×${d.slots.length}`).join(', ')}`);
    // What the block writes when the customer picks the slot; Shopify copies cart attributes to the order.
    await fetch(`${store.url}/cart/update.js`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ attributes: { _delivery_slot: slot.value, 'Delivery slot': `${day.date} ${slot.start.slice(11, 16)}–${slot.end.slice(11, 16)} UTC` } }) });
    const noteAttributes = Object.entries(store.attributes).map(([name, value]) => ({ name, value }));
    out(`   the customer picks ${day.date}, ${slot.value} (${slot.remaining ?? 'no'} places left); cart attributes: ${noteAttributes.map((a) => a.name).join(', ')}`);
    const placed = await stack.sim.placeOrder(domain, { fixture: 'sandton-same-day', ids: 'fresh', overrides: { note_attributes: noteAttributes } });
    const orderId = placed.order.id;
    const scheduled = await waitForDelivery(stack, shop, orderId, ['SCHEDULED', 'NEEDS_ATTENTION'], 20_000);
    if (scheduled?.status !== 'SCHEDULED') return out(`   order ${placed.order.name} was not scheduled for its slot: ${scheduled?.reason ?? 'no delivery'}`), false;
    out(`   order ${placed.order.name} paid → SCHEDULED: ${scheduled.reason}`);
    const at = Date.parse(String((scheduled as AppDelivery & { scheduledFor?: string }).scheduledFor));
    moveFileClock(clockFile, at + 1_000);
    out(`   the app's clock moved to ${new Date(at + 1_000).toISOString()} (the slot's start minus the lead time)`);
    const created = await waitForDelivery(stack, shop, orderId, ['CREATED', 'IN_PROGRESS', 'DELIVERED'], 20_000);
    moveFileClock(clockFile, null);
    ok = !!created?.courierOrderId;
    out(ok ? `   → booked for the slot: ${created!.status}, courier job ${created!.dispatchJobId}; the clock is back to now` : `   order ${placed.order.name} was not booked at the moved clock`);
  } finally {
    moveFileClock(clockFile, null);
    await store.close();
    await stack.cliOk(['configure', domain, '--settings', JSON.stringify({ windows: { default: null }, slots: { enabled: false } })]);
  }
  return ok;
}
