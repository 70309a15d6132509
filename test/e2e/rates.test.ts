// Same-day price at checkout, end to end: the app (child process) registers its carrier
// service with the shop simulator, whose checkout POSTs Shopify-shaped, signed rate requests
// to the callback; the sandbox courier quotes (and is slowed down for the timeout case).
import { expect, it } from 'vitest';
import { accountFor, onboardShop, shopDomain, waitUntil } from '../../dev/demo/merchant.ts';
import { adminCall, enableRates } from '../../dev/demo/rates.ts';
import { priceCents } from '../../dev/sandbox/validate.ts';
import { markedUp } from '../../web/rates/pricing.ts';
import { useStack } from './support.ts';

const stack = useStack('rates', { geocoder: true });
const SHOP = shopDomain('rates');
const RULES = { enabled: true, markupPercent: '10', fixedFee: '5', freeAbove: null, rounding: 'up_99', maxDistanceKm: 40, fallbackRate: null, timeoutMs: 1000, cacheMinutes: 5, quotePhone: '+27 11 555 0100' } as const;
/** Destinations near the Rosebank fixture address, each its own cache entry (~1 km apart). */
const near = (i: number) => ({ latitude: -26.1456 + i * 0.01, longitude: 28.0436 });
const quotes = async () => (await stack().courier.requests({ route: 'quote' })).length;

it('registers the carrier service from settings, and checkout gets a rate priced from the courier quote', async () => {
  const s = stack();
  await onboardShop(s, SHOP, accountFor(SHOP));
  const status = await enableRates(s, SHOP, RULES);
  expect(status.problems).toEqual([]);
  const registered = await s.sim.carrierServices(SHOP);
  expect(registered).toEqual([expect.objectContaining({ name: 'Same-day delivery', callbackUrl: `${s.urls.app}/carrier-service/rates`, active: true })]);
  // The rate's code joined dispatch's shipping lines, so orders that chose it get a courier.
  const settings = await adminCall(s, SHOP, 'GET', '/api/settings');
  expect(settings.body.settings.eligibility.shippingLines).toContain('SDD_SAME_DAY');

  const r = await s.sim.checkoutRates(SHOP, { destination: near(0) });
  // The fixture cart weighs 500 g: quoted at the 1 kg band's top weight, SMALL.
  const quote = BigInt(priceCents({ serviceType: 'SAME_DAY', size: 'SMALL', weightGrams: 1000 }));
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ rates: [{ service_name: 'Same-day delivery', service_code: 'SDD_SAME_DAY', total_price: markedUp(quote, RULES).toString(), description: 'Delivered today by courier', currency: 'ZAR' }] });

  // Turned off: deactivated at Shopify (kept for later), and a stray request gets no rate.
  await enableRates(s, SHOP, { enabled: false });
  expect((await s.sim.carrierServices(SHOP))[0]!.active).toBe(false);
  await enableRates(s, SHOP, RULES);
  expect(await s.sim.carrierServices(SHOP)).toHaveLength(1);
});

it('a second checkout to the same place and weight band is a cache hit: no second courier quote', async () => {
  const s = stack();
  const before = await quotes();
  const a = await s.sim.checkoutRates(SHOP, { destination: near(1) });
  const b = await s.sim.checkoutRates(SHOP, { destination: near(1), items: [{ name: 'b', quantity: 2, grams: 400, price: 1000, requires_shipping: true }] });
  expect(a.body.rates[0].total_price).toBe(b.body.rates[0].total_price);
  expect(await quotes()).toBe(before + 1);
  // Another band is another quote.
  await s.sim.checkoutRates(SHOP, { destination: near(1), items: [{ name: 'c', quantity: 1, grams: 4000, price: 1000, requires_shipping: true }] });
  expect(await quotes()).toBe(before + 2);
});

it('a slow courier: checkout is answered by the deadline, with the fallback rate or with none', async () => {
  const s = stack();
  await s.courier.addFault({ route: 'quote', type: 'latency', latencyMs: 4000, count: 2 });
  const none = await s.sim.checkoutRates(SHOP, { destination: near(2) });
  expect(none.status).toBe(200);
  expect(none.body).toEqual({ rates: [] });
  expect(none.elapsedMs).toBeLessThan(2500);

  await enableRates(s, SHOP, { ...RULES, fallbackRate: '99' });
  const fallback = await s.sim.checkoutRates(SHOP, { destination: near(3) });
  expect(fallback.body.rates).toEqual([expect.objectContaining({ total_price: '9900', service_code: 'SDD_SAME_DAY' })]);
  expect(fallback.elapsedMs).toBeLessThan(2500);
  await s.courier.clearFaults();
});

it('out of zone: no rate; the pickup point is the origin address, geocoded when it has no coordinates', async () => {
  const s = stack();
  const capeTown = await s.sim.checkoutRates(SHOP, { destination: { city: 'Cape Town', postal_code: '8001', latitude: -33.9249, longitude: 18.4241 } });
  expect(capeTown.body).toEqual({ rates: [] });
});

it('the callback checks the signature and the input: 401 forged, 400 not JSON, 422 naming the field; never 500', async () => {
  const s = stack();
  expect(await s.sim.checkoutRates(SHOP, { secret: 'not-the-app-secret' })).toMatchObject({ status: 401, body: { error: expect.stringContaining('HMAC') } });
  expect(await s.sim.checkoutRates(SHOP, { rawBody: '{"rate":' })).toMatchObject({ status: 400, body: { error: 'body is not valid JSON' } });
  expect(await s.sim.checkoutRates(SHOP, { currency: 'rand' })).toMatchObject({ status: 422, body: { field: 'rate.currency' } });
});

it('the settings page says what is missing: a plan without carrier-calculated shipping', async () => {
  const s = stack();
  await s.sim.setPlan(SHOP, { publicDisplayName: 'Basic' });
  const status = await adminCall(s, SHOP, 'GET', '/api/rates/status');
  expect(status.body.problems.map((p: { code: string }) => p.code)).toEqual(['plan']);
  await s.sim.setPlan(SHOP, { publicDisplayName: 'Development', partnerDevelopment: true });
});

it('an uninstalled shop gets no rates', async () => {
  const s = stack();
  await s.sim.uninstall(SHOP, { wait: true });
  // The 200 to app/uninstalled means stored (the inbox); the worker marks the shop a moment later.
  const r = await waitUntil(async () => {
    const answer = await s.sim.checkoutRates(SHOP, { destination: near(4) });
    return answer.status === 200 && answer.body.rates?.length === 0 ? answer : null;
  }, 'no rates once the uninstall is processed', { timeoutMs: 15_000 });
  expect(r).toMatchObject({ status: 200, body: { rates: [] } });
});
