// Demo step: delivery windows (docs/delivery-windows.md). An order paid while the pickup
// location is closed is SCHEDULED for the next opening plus the preparation time; the
// app's clock (dev/clock.ts) is then moved to that time and the order is dispatched.
import { moveFileClock } from '../clock.ts';
import { shopDomain, waitForDelivery, type AppDelivery } from './merchant.ts';
import type { Stack } from './stack.ts';

const ZONE = 'Africa/Johannesburg';
const DAY = { open: '08:00', close: '17:00' };

const localDate = (t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
/** Runs the step and prints it; true when the order was scheduled and then dispatched at the moved clock. */
export async function demoDeliveryWindows(stack: Stack, shop: string, out: (line: string) => void): Promise<boolean> {
  const clockFile = stack.appEnv.DEV_CLOCK_FILE;
  if (!clockFile) return out('   (skipped: the app runs without a movable clock)'), true;
  const domain = shopDomain(shop);
  // Closed today (a closure date), open every day 08:00–17:00 with a 15:00 cut-off and 30 minutes to prepare.
  const window = {
    timeZone: ZONE, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: '15:00',
    closures: [localDate(Date.now())], prepMinutes: 30,
  };
  await stack.cliOk(['configure', domain, '--settings', JSON.stringify({ windows: { default: window } })]);
  out(`   delivery window: ${ZONE}, every day 08:00–17:00, cut-off 15:00, 30 min preparation, closed today (${window.closures[0]})`);
  let ok = false;
  try {
    const placed = await stack.sim.placeOrder(domain, { fixture: 'sandton-same-day', ids: 'fresh' });
    const orderId = placed.order.id;
    const scheduled = await waitForDelivery(stack, shop, orderId, ['SCHEDULED'], 20_000);
    if (!scheduled) return out(`   order ${placed.order.name} was not scheduled`), false;
    const at = Date.parse(String((scheduled as AppDelivery & { scheduledFor?: string }).scheduledFor));
    out(`   order ${placed.order.name} paid → SCHEDULED: ${scheduled.reason}`);
    moveFileClock(clockFile, at + 1_000);
    out(`   the app's clock moved to ${new Date(at + 1_000).toISOString()} (the next opening plus preparation)`);
    // Booked (reconciliation may already have moved it on by the time we look).
    const created = await waitForDelivery(stack, shop, orderId, ['CREATED', 'IN_PROGRESS', 'DELIVERED'], 20_000);
    // Back to the real time at once: courier webhooks are signed with it.
    moveFileClock(clockFile, null);
    ok = !!created?.courierOrderId;
    out(ok ? `   → dispatched at the opening: ${created!.status}, courier job ${created!.dispatchJobId}; the clock is back to now` : `   order ${placed.order.name} was not dispatched at the moved clock`);
  } finally {
    moveFileClock(clockFile, null);
    await stack.cliOk(['configure', domain, '--settings', JSON.stringify({ windows: { default: null } })]);
  }
  return ok;
}
