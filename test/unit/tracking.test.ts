// The tracking page's pure parts: customer labels (message keys), the token, the expiry decision (clock injected),
// the view, the HTML in the customer's language, and the bounded wait on Shopify.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { courierStatusLabel, customerSteps, deliveryStatusLabel, FINAL_LABELS, headline, type TimelineRow } from '../../web/tracking/labels.ts';
import { endedAt, isLinkExpired } from '../../web/tracking/expiry.ts';
import { isTrackingToken, newTrackingToken, trackingPageUrl } from '../../web/tracking/token.ts';
import { trackingView, type ViewOptions } from '../../web/tracking/view.ts';
import { LIVE_POLL_SECONDS, TRACKING_CSP, trackingPage, unavailablePage } from '../../web/tracking/page.ts';
import { pageLocale, TRACKING_CATALOGUES } from '../../web/tracking/locale.ts';
import { boundedProfileLookup, storeContact } from '../../web/tracking/shop.ts';
import { UNKNOWN_SHOP, type ShopProfile } from '../../web/shopify/shop-profile.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../web/lifecycle/machine.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const DAY = 86_400_000;
const row = (status: string, min: number, extra: Partial<TimelineRow> = {}): TimelineRow => ({ kind: 'courier_status', status, applied: true, generation: 1, occurredAt: at(min), ...extra });

describe('courierStatusLabel', () => {
  it.each([
    ['pending', 'status.booked'],
    ['accepted', 'status.booked'],
    ['confirmed', 'status.booked'],
    ['driver_assigned', 'status.driverAssigned'],
    ['courier_assigned', 'status.driverAssigned'],
    ['at_pickup', 'status.driverToStore'],
    ['picked_up', 'status.pickedUp'],
    ['Collected', 'status.pickedUp'],
    ['in_transit', 'status.onTheWay'],
    ['delayed', 'status.runningLate'],
    ['out_for_delivery', 'status.outForDelivery'],
    ['arriving', 'status.outForDelivery'],
    ['delivery_attempted', 'status.attempted'],
    ['delivered', 'status.delivered'],
    ['completed', 'status.delivered'],
    ['failed', 'status.unsuccessful'],
    ['cancelled', 'status.cancelled'],
    ['canceled', 'status.cancelled'],
    ['returned', 'status.returned'],
    ['teleported', null],
  ])('%s → %s', (status, label) => {
    expect(courierStatusLabel(status)).toBe(label);
  });
});

describe('deliveryStatusLabel', () => {
  it.each<[DeliveryStatus, string]>([
    ['PENDING', 'status.preparing'],
    ['NEEDS_ATTENTION', 'status.preparing'],
    ['CREATED', 'status.booked'],
    ['IN_PROGRESS', 'status.booked'],
    ['DELIVERED', 'status.delivered'],
    ['CANCEL_REQUESTED_IN_SHOPIFY', 'status.cancelled'],
    ['FAILED', 'status.notSent'],
    ['SKIPPED', 'status.notSent'],
  ])('%s → %s', (status, label) => {
    expect(deliveryStatusLabel(status)).toBe(label);
  });

  it('covers every delivery status', () => {
    expect(DELIVERY_STATUSES.map(deliveryStatusLabel).every((l) => l.length > 0)).toBe(true);
  });

  it('every label is a message in the English catalogue (so in every language: test/unit/i18n.test.ts)', () => {
    const keys = new Set([...DELIVERY_STATUSES.map(deliveryStatusLabel), ...FINAL_LABELS, 'status.orderReceived',
      ...['pending', 'driver_assigned', 'at_pickup', 'picked_up', 'in_transit', 'delayed', 'out_for_delivery', 'delivery_attempted', 'delivered', 'failed', 'cancelled', 'returned'].map((s) => courierStatusLabel(s)!)]);
    expect([...keys].filter((k) => !(k in TRACKING_CATALOGUES.en))).toEqual([]);
    expect(keys.size).toBe(Object.keys(TRACKING_CATALOGUES.en).filter((k) => k.startsWith('status.')).length);
  });
});

describe('customerSteps and headline', () => {
  const d = { createdAt: at(0), generation: 2 };
  it.each<[string, TimelineRow[], string[]]>([
    ['no courier status yet: the order alone', [], ['status.orderReceived']],
    ['applied statuses oldest first, synonyms folded', [row('picked_up', 30, { generation: 2 }), row('accepted', 5, { generation: 2 }), row('confirmed', 6, { generation: 2 })], ['status.orderReceived', 'status.booked', 'status.pickedUp']],
    ['late (not applied) statuses are left out', [row('in_transit', 40, { generation: 2 }), row('picked_up', 45, { generation: 2, applied: false })], ['status.orderReceived', 'status.onTheWay']],
    ['an earlier booking is left out', [row('delivered', 20, { generation: 1 }), row('driver_assigned', 50, { generation: 2 })], ['status.orderReceived', 'status.driverAssigned']],
    ['statuses with the same timestamp, stored in any order: progress order', [row('delivered', 30, { generation: 2 }), row('out_for_delivery', 30, { generation: 2 }), row('picked_up', 30, { generation: 2 })], ['status.orderReceived', 'status.pickedUp', 'status.outForDelivery', 'status.delivered']],
    ['unknown statuses and other kinds are left out', [row('teleported', 10, { generation: 2 }), { kind: 'fulfilled', status: null, applied: true, generation: 2, occurredAt: at(11) }], ['status.orderReceived']],
  ])('%s', (_name, rows, labels) => {
    expect(customerSteps(d, rows).map((s) => s.label)).toEqual(labels);
  });

  it.each<[DeliveryStatus, string[], string]>([
    ['PENDING', [], 'status.preparing'],
    ['IN_PROGRESS', ['picked_up'], 'status.pickedUp'],
    ['DELIVERED', ['delivered'], 'status.delivered'],
    ['CANCEL_REQUESTED_IN_SHOPIFY', ['picked_up'], 'status.cancelled'],
    ['NEEDS_ATTENTION', ['failed'], 'status.unsuccessful'],
  ])('headline of %s after %j is %s', (status, statuses, expected) => {
    const steps = customerSteps({ createdAt: at(0), generation: 1 }, statuses.map((s, i) => row(s, i + 1)));
    expect(headline(status, steps)).toBe(expected);
  });
});

describe('tracking token', () => {
  it('is 192 random bits, base64url, and never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newTrackingToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(24);
    expect([...tokens].every(isTrackingToken)).toBe(true);
  });

  it.each(['', 'short', 'x'.repeat(31), 'x'.repeat(33), `${'x'.repeat(31)}/`, `${'x'.repeat(31)}=`, 'cm3abcdefghijklmnopqrstu'])('%j is not a token', (t) => {
    expect(isTrackingToken(t)).toBe(false);
  });

  it('makes the page URL from the app URL', () => {
    expect(trackingPageUrl('https://app.example.com/', 'A'.repeat(32))).toBe(`https://app.example.com/track/${'A'.repeat(32)}`);
  });
});

describe('isLinkExpired (clock injected)', () => {
  const ended = at(0);
  it.each<[string, DeliveryStatus, Date | null, number, number, boolean]>([
    ['in progress never expires', 'IN_PROGRESS', ended, T0 + 365 * DAY, 7, false],
    ['needs attention never expires', 'NEEDS_ATTENTION', ended, T0 + 365 * DAY, 7, false],
    ['delivered, a minute before the limit', 'DELIVERED', ended, T0 + 7 * DAY - 60_000, 7, false],
    ['delivered, at the limit', 'DELIVERED', ended, T0 + 7 * DAY, 7, true],
    ['delivered, one day with a 1-day setting', 'DELIVERED', ended, T0 + DAY + 1, 1, true],
    ['delivered, 8 days with a 30-day setting', 'DELIVERED', ended, T0 + 8 * DAY, 30, false],
    ['cancelled in Shopify expires too', 'CANCEL_REQUESTED_IN_SHOPIFY', ended, T0 + 8 * DAY, 7, true],
    ['no end time known: live', 'DELIVERED', null, T0 + 365 * DAY, 7, false],
  ])('%s', (_name, status, endedAtValue, now, expiryDays, expected) => {
    expect(isLinkExpired({ status, endedAt: endedAtValue, now, expiryDays })).toBe(expected);
  });

  it('ends at the courier\'s final status, else the latest timeline line, else the row\'s last change', () => {
    const updatedAt = at(500);
    expect(endedAt({ updatedAt }, [row('picked_up', 10), row('delivered', 60), { kind: 'shopify_event', status: 'DELIVERED', applied: true, generation: 1, occurredAt: at(90) }])).toEqual(at(60));
    expect(endedAt({ updatedAt }, [{ kind: 'shopify_cancelled', status: null, applied: true, generation: 1, occurredAt: at(30) }, row('picked_up', 10)])).toEqual(at(30));
    expect(endedAt({ updatedAt }, [])).toEqual(updatedAt);
  });
});

describe('trackingView and the page', () => {
  const delivery = {
    status: 'IN_PROGRESS' as DeliveryStatus, createdAt: at(0), dispatchedAt: at(1) as Date | null, scheduledFor: null, generation: 1, orderName: '#1001', redactedAt: null as Date | null,
    shippingAddress: () => ({ first_name: 'Anna <b>', city: 'Surry Hills', address1: '1 Secret St', last_name: 'Lastname', phone: '+61400000000' }),
  };
  const store = { name: 'Thandi <Flowers>', email: 'hello@flowers.example', phone: '+27 11 555 0100' };
  const NOW = T0 + 45 * 60_000;
  const opts: ViewOptions = { courierName: 'Swift', store, final: false, timeZone: 'UTC', prepMinutes: 0, estimateMinutes: 180, now: NOW };
  const en = pageLocale({ browser: ['en-GB'] });
  const de = pageLocale({ customer: 'de', country: 'DE' });
  const page = (v: ReturnType<typeof trackingView>, locale = en, now = NOW) => trackingPage(v, { now, locale });

  it('in English: the store and order, first name, suburb, courier, last update, the steps, the estimate and how to reach the store', () => {
    const v = trackingView(delivery, [row('picked_up', 30)], opts);
    expect(v).toMatchObject({ headline: 'status.pickedUp', firstName: 'Anna <b>', suburb: 'Surry Hills', courierName: 'Swift', lastUpdate: at(30) });
    const html = page(v);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<title>Picked up · Thandi &#60;Flowers&#62;</title>');
    expect(html).toContain('<p class="shop">Thandi &#60;Flowers&#62; · Order #1001</p>');
    expect(html).toContain('<h1>Picked up</h1>');
    expect(html).toContain('Hi Anna &#60;b&#62;, here is where your same-day delivery is.');
    expect(html).toContain('<time datetime="2026-11-20T10:30:00.000Z">10:30</time> · 15 minutes ago');
    expect(html).toContain('Order received');
    expect(html).toContain('<h2 id="estimate-h">Expected delivery</h2><p class="window">Today, 10:01–13:01</p>');
    expect(html).toContain('An estimate, from when your order was booked');
    expect(html).toContain('Contact Thandi &#60;Flowers&#62;:');
    expect(html).toContain('<a href="mailto:hello@flowers.example">hello@flowers.example</a>');
    expect(html).toContain('<a href="tel:+27115550100">+27 11 555 0100</a>');
    expect(html).toContain('Times are in UTC.');
    expect(html).toContain('<meta name="robots" content="noindex,nofollow">');
    for (const secret of ['1 Secret St', 'Lastname', '+61400000000']) expect(html).not.toContain(secret);
  });

  it("in German: lang, words, dates and the zone's name in German, on the shop's clock", () => {
    const v = trackingView(delivery, [row('picked_up', 30)], { ...opts, timeZone: 'Europe/Berlin' });
    const html = page(v, de);
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<h1>Abgeholt</h1>');
    expect(html).toContain('Hallo Anna &#60;b&#62;, hier sehen Sie');
    expect(html).toContain('Bestellung #1001');
    expect(html).toContain('<time datetime="2026-11-20T10:30:00.000Z">11:30</time> · vor 15 Minuten');
    expect(html).toContain('<p class="window">Heute, 11:01–14:01 Uhr</p>');
    expect(html).toContain('Zeitangaben: Mitteleuropäische Zeit.');
    expect(html).toContain('Kontakt zu Thandi &#60;Flowers&#62;:');
    expect(html).not.toMatch(/Picked up|Order received|Expected delivery/);
  });

  it('shows no address data once the personal data is erased; a final page has no script, no estimate and says it is complete', () => {
    const v = trackingView({ ...delivery, status: 'DELIVERED', redactedAt: at(100), shippingAddress: () => { throw new Error('must not be read'); } }, [row('delivered', 60)], { ...opts, final: true });
    expect(v.firstName).toBeNull();
    expect(v.suburb).toBeNull();
    expect(v.estimate).toBeNull();
    const html = page(v);
    expect(html).not.toContain('Delivering to');
    expect(html).not.toMatch(/<script|http-equiv="refresh"|role="status"|Expected delivery/);
    expect(html).toContain('data-poll="0"');
    expect(html).toContain('This delivery is complete.');
  });

  it('live update without meta refresh: the script allowed by its hash, the poll interval, a polite status region and the announcement', () => {
    const html = page(trackingView(delivery, [row('picked_up', 30)], opts));
    expect(html).not.toContain('http-equiv');
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    expect(TRACKING_CSP).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(html).toContain(`data-poll="${LIVE_POLL_SECONDS}"`);
    expect(html).toContain('<p class="foot" id="announce" role="status">This page updates itself while your delivery is on its way.</p>');
    expect(html).toContain('data-announce="Updated 10:30: Picked up"');
    expect(html).toContain('<noscript><p class="foot">Reload this page for the latest status.</p></noscript>');
  });

  it('the version moves with the status, not with the clock', () => {
    const version = (html: string) => /data-version="([^"]+)"/.exec(html)![1];
    const before = trackingView(delivery, [row('picked_up', 30)], opts);
    const after = trackingView(delivery, [row('picked_up', 30), row('out_for_delivery', 50)], opts);
    expect(version(page(before, en, NOW + 10 * 60_000))).toBe(version(page(before)));
    expect(version(page(after))).not.toBe(version(page(before)));
  });

  it('the CSP allows nothing but its own stylesheet and script, and the script fetching the page', () => {
    expect(TRACKING_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; script-src 'sha256-[A-Za-z0-9+/]+=*'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    expect(unavailablePage('expired', { locale: en })).not.toMatch(/<script|<link|src=|https?:\/\//);
  });

  it('no contact card without a usable email or phone; an address that could add mail headers is left out', () => {
    const none = page(trackingView(delivery, [], { ...opts, store: { name: 'demo', email: null, phone: null } }));
    expect(none).not.toContain('Questions about your order?');
    const odd = page(trackingView(delivery, [], { ...opts, store: { name: 'demo', email: 'a@b.example?bcc=x@y.example', phone: 'call us' } }));
    expect(odd).not.toMatch(/mailto:|tel:/);
  });

  it('404 and 410 name the store, with its contact, when the token identified one; otherwise they name nothing', () => {
    const expired = unavailablePage('expired', { locale: de, store });
    expect(expired).toContain('<h1>Dieser Link zur Sendungsverfolgung ist abgelaufen</h1>');
    expect(expired).toContain('Bei Fragen zu Ihrer Bestellung hilft Ihnen Thandi &#60;Flowers&#62;.');
    expect(expired).toContain('mailto:hello@flowers.example');
    const gone = unavailablePage('not_found', { locale: en, store });
    expect(gone).toContain('This delivery from Thandi &#60;Flowers&#62; can no longer be tracked here.');
    const unknown = unavailablePage('not_found', { locale: en });
    expect(unknown).toContain('Check the link in your shipping email, or contact the shop.');
    expect(unknown).not.toMatch(/Thandi|mailto/);
  });

  it("the busy page says to try again later, in the browser's language", () => {
    expect(unavailablePage('too_many', { locale: en })).toContain('Please try again in a minute.');
    expect(unavailablePage('too_many', { locale: pageLocale({ browser: ['es-ES'] }) })).toContain('Vuelve a intentarlo en un minuto.');
  });

  it("the store is Shopify's name, else the shop's handle", () => {
    expect(storeContact('demo.myshopify.com', { ...UNKNOWN_SHOP, name: 'Demo Flowers', contactEmail: 'a@b.example', phone: '+1' })).toEqual({ name: 'Demo Flowers', email: 'a@b.example', phone: '+1' });
    expect(storeContact('demo.myshopify.com', UNKNOWN_SHOP)).toEqual({ name: 'demo', email: null, phone: null });
  });
});

describe("pageLocale: the order's customer locale, else the shop's primary locale, else Accept-Language", () => {
  it.each<[Parameters<typeof pageLocale>[0], string, string]>([
    [{ customer: 'de', shop: 'fr', browser: ['es'] }, 'de', 'Zugestellt'],
    [{ customer: null, shop: 'fr', browser: ['es'] }, 'fr', 'Livrée'],
    [{ customer: 'ja', shop: 'fr-CA', browser: ['es'] }, 'fr', 'Livrée'],
    [{ customer: undefined, shop: null, browser: ['pt-BR', 'es-419', 'en'] }, 'es', 'Entregado'],
    [{ customer: 'af-ZA', browser: ['de'] }, 'af', 'Afgelewer'],
    [{ browser: ['*'] }, 'en', 'Delivered'],
    [{}, 'en', 'Delivered'],
  ])('%j → %s', (candidates, language, delivered) => {
    const l = pageLocale(candidates);
    expect(l.language).toBe(language);
    expect(l.t('status.delivered')).toBe(delivered);
  });

  it("formats for the chosen candidate's region, else the shop's country", () => {
    expect(pageLocale({ customer: 'en', country: 'ZA' }).dates('UTC').tag).toBe('en-ZA');
    expect(pageLocale({ customer: 'en-US', country: 'ZA' }).dates('UTC').tag).toBe('en-US');
    expect(pageLocale({ shop: 'de', browser: ['de-AT'], country: 'CH' }).dates('UTC').tag).toBe('de-CH');
  });
});

describe('boundedProfileLookup: the page does not wait on a slow Shopify', () => {
  const berlin: ShopProfile = { ...UNKNOWN_SHOP, name: 'Berlin Blumen', timeZone: 'Europe/Berlin', primaryLocale: 'de', source: 'shop' };
  // A stand-in for the Shopify lookup whose answer the test releases by hand.
  function slowShopify() {
    let release!: (p: ShopProfile) => void;
    let calls = 0;
    const answer = new Promise<ShopProfile>((r) => (release = r));
    const lookup = (_domain: string) => {
      calls++;
      return answer;
    };
    return { lookup, release, calls: () => calls };
  }

  it('unknown (UTC, no name) while Shopify has not answered; its profile once it has; one question at a time', async () => {
    const shopify = slowShopify();
    const profileOf = boundedProfileLookup(shopify.lookup, 5);
    expect(await profileOf('slow.myshopify.com')).toEqual(UNKNOWN_SHOP);
    expect(await profileOf('slow.myshopify.com')).toEqual(UNKNOWN_SHOP);
    expect(shopify.calls()).toBe(1);
    shopify.release(berlin);
    expect(await profileOf('slow.myshopify.com')).toEqual(berlin);
  });

  it('an answer in time is used at once; a failed lookup is unknown', async () => {
    const shopify = slowShopify();
    shopify.release(berlin);
    expect(await boundedProfileLookup(shopify.lookup, 60_000)('quick.myshopify.com')).toEqual(berlin);
    expect(await boundedProfileLookup(() => Promise.reject(new Error('Shopify down')), 60_000)('down.myshopify.com')).toEqual(UNKNOWN_SHOP);
  });
});
