// Shopify's rate request (its documented body) → pricing inputs and the courier quote body;
// the quote cache; the settings page's setup checks (web/rates/request.ts, cache.ts, setup.ts).
import { describe, expect, it } from 'vitest';
import { rateRequestBody } from '../../dev/shop-sim/carrier-services.ts';
import { decideEligibility } from '../../web/dispatch/eligibility.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { QuoteCache } from '../../web/rates/cache.ts';
import { asAddress, coordinatesOf, itemsCents, parseRateRequest, quoteBody, shippableGrams } from '../../web/rates/request.ts';
import { carrierServiceStep, eligibilityWithCode, planSupport, setupProblems } from '../../web/rates/setup.ts';
import { applySettingsPatch, DEFAULT_SETTINGS, SettingsSchema } from '../../web/settings/schema.ts';

const fixture = (over: Record<string, unknown> = {}) => JSON.parse(rateRequestBody(over));

describe('parseRateRequest', () => {
  it("reads Shopify's documented shape", () => {
    const r = parseRateRequest(fixture({ items: [{ name: 'a', quantity: 2, grams: 700, price: 12_500, requires_shipping: true }, { name: 'gift card', quantity: 1, grams: 250, price: 5000, requires_shipping: false }] }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.rate.currency).toBe('ZAR');
    expect(shippableGrams(r.rate)).toBe(1400);
    expect(itemsCents(r.rate)).toBe(30_000n);
    expect(coordinatesOf(r.rate.destination)).toEqual({ lat: -26.1456, lng: 28.0436 });
    expect(coordinatesOf(r.rate.origin)).toBeNull(); // rate requests may lack them
  });

  it.each([
    ['no rate', {}, 'rate'],
    ['no destination country', { rate: { ...fixture().rate, destination: { ...fixture().rate.destination, country: undefined } } }, 'rate.destination.country'],
    ['a bad currency', { rate: { ...fixture().rate, currency: 'rand' } }, 'rate.currency'],
    ['no items', { rate: { ...fixture().rate, items: [] } }, 'rate.items'],
    ['a price that is not subunits', { rate: { ...fixture().rate, items: [{ quantity: 1, grams: 1, price: '12.50' }] } }, 'rate.items.0.price'],
    ['a negative weight', { rate: { ...fixture().rate, items: [{ quantity: 1, grams: -1, price: 1 }] } }, 'rate.items.0.grams'],
  ])('refuses %s, naming the field', (_what, body, field) => {
    const r = parseRateRequest(body);
    expect(r).toMatchObject({ ok: false, field, message: expect.stringMatching(new RegExp(`^${field.replace(/\./g, '\\.')}: \\S`)) });
  });
});

it('a body that is not an object is refused as "(body)"', () => {
  expect(parseRateRequest('rates please')).toMatchObject({ ok: false, field: '(body)', message: expect.stringMatching(/^\(body\): \S/) });
});

it("asAddress: the rate request's address as the geocoder reads an order's", () => {
  const r = (parseRateRequest(fixture()) as { ok: true; rate: any }).rate;
  expect(asAddress({ ...r.destination, company_name: 'Acme' })).toEqual({
    name: 'Naledi Khumalo', first_name: null, last_name: null, company: 'Acme', address1: '15 Cradock Avenue', address2: 'Rosebank',
    city: 'Johannesburg', province: 'GP', zip: '2196', country: null, country_code: 'ZA', phone: '+27 61 555 0175', latitude: null, longitude: null,
  });
  expect(asAddress({ country: 'ZA' } as any)).toMatchObject({ name: null, company: null, address1: null, address2: null, city: null, province: null, zip: null, phone: null });
});

describe('quoteBody', () => {
  const rate = () => (parseRateRequest(fixture()) as { ok: true; rate: any }).rate;
  const opts = { settings: DEFAULT_SETTINGS, storeId: 'store_1', destination: { lat: -26.1456, lng: 28.0436 }, bandGrams: 2000, reference: 'rate-x' };

  it('a valid create-order body for the band weight', () => {
    const b = quoteBody(rate(), opts);
    expect(b).toEqual({
      ok: true,
      request: {
        reference: 'rate-x', channel: 'web', sellerType: DEFAULT_SETTINGS.sellerType, fulfilmentType: DEFAULT_SETTINGS.fulfilmentType,
        originSystem: 'shopify-checkout', serviceType: DEFAULT_SETTINGS.serviceType, pickup: { storeId: 'store_1' },
        dropoff: {
          name: 'Naledi Khumalo', phone: '+27615550175', addressLine1: '15 Cradock Avenue', addressLine2: 'Rosebank', city: 'Johannesburg', country: 'ZA',
          latitude: -26.1456, longitude: 28.0436,
        },
        package: { size: 'SMALL', weightKg: '2', category: DEFAULT_SETTINGS.package.category },
        amount: '300.00', currency: 'ZAR',
      },
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['the buyer', { name: '  Naledi  ', company_name: 'Acme' }, 'Naledi'],
    ['the company when there is no name', { name: ' ', company_name: ' Acme ' }, 'Acme'],
    ['"Checkout" when neither', { name: null, company_name: null }, 'Checkout'],
  ])('the drop-off name is %s', (_what, names, expected) => {
    const r = rate();
    Object.assign(r.destination, names);
    const b = quoteBody(r, opts);
    expect(b.ok && b.request.dropoff.name).toBe(expected);
  });

  it('no second address line when the destination has none', () => {
    const r = rate();
    r.destination.address2 = '';
    const b = quoteBody(r, opts);
    expect(b.ok && 'addressLine2' in b.request.dropoff).toBe(false);
  });

  it.each([
    ['no street address', { address1: null }],
    ['no city', { city: '' }],
  ])('no quote for a destination with %s', (_what, change) => {
    const r = rate();
    Object.assign(r.destination, change);
    expect(quoteBody(r, opts)).toEqual({ ok: false, message: 'the destination has no street address or city' });
  });

  it("no buyer phone: the store's stands in; neither: the rates.quotePhone setting; none of the three: no quote, naming the setting", () => {
    const r = rate();
    const withQuotePhone = { ...opts, settings: SettingsSchema.parse({ rates: { quotePhone: '+27 21 555 0199' } }) };
    expect(quoteBody(r, withQuotePhone)).toMatchObject({ ok: true, request: { dropoff: { phone: '+27615550175' } } });
    r.destination.phone = null;
    const b = quoteBody(r, opts);
    expect(b.ok && b.request.dropoff.phone).toBe('+27115550100');
    expect(quoteBody(r, withQuotePhone)).toMatchObject({ ok: true, request: { dropoff: { phone: '+27115550100' } } });
    r.origin.phone = null;
    expect(quoteBody(r, withQuotePhone)).toMatchObject({ ok: true, request: { dropoff: { phone: '+27215550199' } } });
    expect(quoteBody(r, opts)).toEqual({ ok: false, message: 'no valid phone number on the destination or the origin: set a phone for checkout quotes in Settings → Same-day price at checkout' });
    // An unusable buyer phone falls through to the next one too.
    r.destination.phone = '12';
    expect(quoteBody(r, withQuotePhone)).toMatchObject({ ok: true, request: { dropoff: { phone: '+27215550199' } } });
  });

  it.each([
    ['a local number', '021 555 0199'],
    ['not a phone', 'call the shop'],
    ['too short', '+27 21'],
  ])('rates.quotePhone refuses %s, naming the field', (_what, quotePhone) => {
    expect(() => applySettingsPatch(DEFAULT_SETTINGS, { rates: { quotePhone } })).toThrow(expect.objectContaining({ fields: { 'rates.quotePhone': expect.stringContaining('international format') } }));
  });

  it('rates.quotePhone: null by default, kept as typed when valid', () => {
    expect(DEFAULT_SETTINGS.rates.quotePhone).toBeNull();
    expect(applySettingsPatch(DEFAULT_SETTINGS, { rates: { quotePhone: ' +27 21 555 0199 ' } }).rates.quotePhone).toBe('+27 21 555 0199');
    expect(applySettingsPatch(DEFAULT_SETTINGS, { rates: { quotePhone: null } }).rates.quotePhone).toBeNull();
  });
});

describe('QuoteCache', () => {
  const price = (cents: bigint) => ({ kind: 'price' as const, cents, currency: 'ZAR' });

  it('hits within the TTL, asks again after it, shares one call in flight, keeps no failures', async () => {
    let now = 0;
    let calls = 0;
    const cache = new QuoteCache({ now: () => now });
    const load = async () => price(BigInt(++calls));
    const [a, b] = await Promise.all([cache.get('k', 1000, load), cache.get('k', 1000, load)]);
    expect([a.cents, b.cents, calls]).toEqual([1n, 1n, 1]);
    now = 999;
    expect((await cache.get('k', 1000, load)).cents).toBe(1n);
    now = 1000;
    expect((await cache.get('k', 1000, load)).cents).toBe(2n);
    expect([cache.hits, cache.misses]).toEqual([1, 2]);
    await expect(cache.get('bad', 1000, async () => { throw new Error('no'); })).rejects.toThrow('no');
    expect((await cache.get('bad', 1000, load)).cents).toBe(3n);
  });
});

describe('setup checks', () => {
  it.each([
    [{ publicDisplayName: 'Basic', partnerDevelopment: false, shopifyPlus: false }, 'no'],
    [{ publicDisplayName: 'Grow', partnerDevelopment: false, shopifyPlus: false }, 'maybe'],
    [{ publicDisplayName: 'Advanced', partnerDevelopment: false, shopifyPlus: false }, 'yes'],
    [{ publicDisplayName: 'Development', partnerDevelopment: true, shopifyPlus: false }, 'yes'],
    [{ publicDisplayName: 'Whatever', partnerDevelopment: false, shopifyPlus: true }, 'yes'],
    [{ publicDisplayName: 'Plus Trial', partnerDevelopment: false, shopifyPlus: false }, 'yes'],
    [{ publicDisplayName: 'Retail', partnerDevelopment: false, shopifyPlus: false }, 'no'],
    [{ publicDisplayName: 'Other', partnerDevelopment: false, shopifyPlus: false }, 'maybe'],
  ])('plan %o → %s', (plan, support) => {
    expect(planSupport(plan)).toBe(support);
  });

  it('says what is missing: the scope, the plan, the pickup store; a refused create is the last word', () => {
    const plan = { publicDisplayName: 'Basic', partnerDevelopment: false, shopifyPlus: false };
    const rates = { enabled: true, quotePhone: '+27 21 555 0199' };
    expect(setupProblems({ scopes: ['write_orders'], plan, pickupStoreId: null, rates }).map((p) => p.code)).toEqual(['missing_scope', 'plan', 'no_pickup_store']);
    const grow = { ...plan, publicDisplayName: 'Grow' };
    expect(setupProblems({ scopes: ['write_shipping'], plan: grow, pickupStoreId: 's', rates }).map((p) => p.code)).toEqual(['plan_unknown']);
    expect(setupProblems({ scopes: ['write_shipping'], plan: grow, pickupStoreId: 's', createRefusal: 'not on this plan', rates }).map((p) => p.code)).toEqual(['create_refused']);
  });

  it.each<[string, { enabled: boolean; quotePhone: string | null }, boolean]>([
    ['rates on, no quote phone: warned', { enabled: true, quotePhone: null }, true],
    ['rates on, an empty quote phone: warned', { enabled: true, quotePhone: '' }, true],
    ['rates on, a quote phone: quiet', { enabled: true, quotePhone: '+27 21 555 0199' }, false],
    ['rates off, no quote phone: quiet', { enabled: false, quotePhone: null }, false],
  ])('%s', (_what, rates, warned) => {
    const plan = { publicDisplayName: 'Advanced', partnerDevelopment: false, shopifyPlus: false };
    const problems = setupProblems({ scopes: ['write_shipping'], plan, pickupStoreId: 's', rates });
    expect(problems).toEqual(warned ? [{ code: 'no_quote_phone', message: expect.stringContaining('"Phone for checkout quotes"') }] : []);
    if (warned) expect(problems[0]!.message).toMatch(/^Set a phone for checkout quotes .*Shopify's rate requests often have no phone, and the courier needs one to quote/);
  });

  it("the rate's service code is what dispatch matches: an order with it is eligible, and only then", () => {
    const settings = SettingsSchema.parse({ autoDispatch: true, rates: { enabled: true, serviceCode: 'SDD_SAME_DAY' } });
    const lines = eligibilityWithCode(settings)!;
    expect(lines).toEqual(['Same-day delivery', 'SDD_SAME_DAY']);
    const withCode = SettingsSchema.parse({ ...settings, eligibility: { ...settings.eligibility, shippingLines: lines } });
    expect(eligibilityWithCode(withCode)).toBeNull();
    const order = (line: Record<string, unknown>) => parseOrderSnapshot({ id: 1, name: '#1', currency: 'ZAR', total_price: '10.00', line_items: [], shipping_lines: [line], shipping_address: { country_code: 'ZA' } });
    // At checkout Shopify writes the carrier service's rate as title = service_name, code = service_code.
    expect(decideEligibility(order({ title: 'Express', code: 'SDD_SAME_DAY', source: 'Same-day' }), withCode)).toEqual({ dispatch: true });
    expect(decideEligibility(order({ title: 'Express', code: 'SDD_SAME_DAY', source: 'Same-day' }), settings).dispatch).toBe(false);
    expect(decideEligibility(order({ title: 'Standard', code: 'STANDARD' }), withCode).dispatch).toBe(false);
  });

  it('carrierServiceStep: create when on and absent, update on change, nothing when in sync; never touches another app\'s', () => {
    const want = { enabled: true, name: 'Same-day', callbackUrl: 'https://app/cb' };
    const other = { id: 'gid://x/1', name: 'Same-day', callbackUrl: 'https://other/cb', active: true };
    expect(carrierServiceStep([other], want)).toEqual({ kind: 'create', input: { name: 'Same-day', callbackUrl: 'https://app/cb', active: true, supportsServiceDiscovery: true } });
    expect(carrierServiceStep([], { ...want, enabled: false })).toEqual({ kind: 'none' });
    const ours = { id: 'gid://x/2', name: 'Same-day', callbackUrl: 'https://app/cb', active: true };
    expect(carrierServiceStep([other, ours], want)).toEqual({ kind: 'none' });
    expect(carrierServiceStep([ours], { ...want, enabled: false })).toEqual({ kind: 'update', input: { id: 'gid://x/2', name: 'Same-day', callbackUrl: 'https://app/cb', active: false } });
    expect(carrierServiceStep([ours], { ...want, name: 'Today' })).toMatchObject({ kind: 'update', input: { name: 'Today', active: true } });
  });
});
