// Same-day price at checkout: the rate's rules, and what Shopify needs for it (the
// write_shipping permission, a plan with carrier-calculated shipping). Saving syncs the
// carrier service with Shopify.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldError, post, put, toast } from '../api.ts';
import { useResource } from '../state.ts';
import type { RatesStatus, Settings } from '../types.ts';

type Rates = Settings['rates'];
type Form = Record<'serviceName' | 'serviceCode' | 'markupPercent' | 'fixedFee' | 'freeAbove' | 'maxDistanceKm' | 'fallbackRate' | 'timeoutMs' | 'pickupLatitude' | 'pickupLongitude' | 'quotePhone', string> & { enabled: boolean; rounding: Rates['rounding'] };

// Rates still work with these; the rest stop them.
const WARNINGS = new Set<RatesStatus['problems'][number]['code']>(['plan_unknown', 'no_quote_phone']);
const str = (v: string | number | null) => (v === null ? '' : String(v));
const num = (v: string) => (v.trim() === '' ? null : Number(v));

function toForm(r: Rates): Form {
  return {
    enabled: r.enabled, rounding: r.rounding, serviceName: r.serviceName, serviceCode: r.serviceCode, markupPercent: r.markupPercent, fixedFee: r.fixedFee,
    freeAbove: str(r.freeAbove), maxDistanceKm: str(r.maxDistanceKm), fallbackRate: str(r.fallbackRate), timeoutMs: String(r.timeoutMs),
    pickupLatitude: str(r.pickupLatitude), pickupLongitude: str(r.pickupLongitude), quotePhone: str(r.quotePhone),
  };
}

function toPatch(f: Form): Partial<Rates> {
  return {
    enabled: f.enabled, rounding: f.rounding, serviceName: f.serviceName, serviceCode: f.serviceCode, markupPercent: f.markupPercent, fixedFee: f.fixedFee,
    freeAbove: f.freeAbove.trim() || null, fallbackRate: f.fallbackRate.trim() || null, maxDistanceKm: num(f.maxDistanceKm),
    timeoutMs: Number(f.timeoutMs), pickupLatitude: num(f.pickupLatitude), pickupLongitude: num(f.pickupLongitude), quotePhone: f.quotePhone.trim() || null,
  };
}

export function RatesSettings({ rates }: { rates: Rates }) {
  const status = useResource<RatesStatus>('/api/rates/status');
  const [form, setForm] = useState<Form>(() => toForm(rates));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  useEffect(() => setForm(toForm(rates)), [rates]);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm((f) => ({ ...f, [k]: v }));
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const err = (k: string) => fieldError(errors, `rates.${k}`);

  async function save() {
    setSaving(true);
    setErrors({});
    try {
      await put('/api/settings', { settings: { rates: toPatch(form) } });
      await post<RatesStatus>('/api/rates/sync');
      await status.reload();
      toast('Checkout rate saved');
    } catch (e) {
      if (e instanceof ApiError) setErrors(e.errors);
      toast(e instanceof ApiError ? e.message : String(e), true);
    } finally {
      setSaving(false);
    }
  }

  const st = status.data;
  const field = (k: keyof Form, label: string, details?: string) => (
    <s-text-field label={label} value={form[k] as string} error={err(k)} details={details} onInput={(e) => set(k, text(e) as never)} />
  );
  return (
    <s-section heading="Same-day price at checkout">
      <s-stack gap="base">
        {status.error && <s-banner tone="critical">{status.error}</s-banner>}
        {st && st.problems.map((p) => <s-banner key={p.code} tone={WARNINGS.has(p.code) ? 'warning' : 'critical'}>{p.message}</s-banner>)}
        {st && (
          <s-text color="subdued">
            {st.carrierService ? `Registered with Shopify as "${st.carrierService.name}" (${st.carrierService.active ? 'active' : 'inactive'}).` : 'Not registered with Shopify yet.'} Plan: {st.plan.name}.
          </s-text>
        )}
        <s-checkbox label="Offer a same-day rate at checkout" checked={form.enabled} onChange={(e) => set('enabled', (e.currentTarget as unknown as HTMLInputElement).checked)} details="Priced from the courier's quote. Orders that choose it are dispatched (its code joins your same-day shipping methods)." />
        {field('serviceName', 'Rate name at checkout')}
        {field('serviceCode', 'Rate code', 'Orders carry it on their shipping line; dispatch matches it exactly.')}
        {field('markupPercent', 'Markup %')}
        {field('fixedFee', 'Fixed fee')}
        {field('freeAbove', 'Free above order value', 'Empty: never free.')}
        <s-select label="Rounding" value={form.rounding} error={err('rounding')} onChange={(e) => set('rounding', text(e) as Rates['rounding'])}>
          <s-option value="none">None</s-option>
          <s-option value="up_whole">Up to a whole amount</s-option>
          <s-option value="nearest_whole">To the nearest whole amount</s-option>
          <s-option value="up_99">Up to .99</s-option>
        </s-select>
        {field('maxDistanceKm', 'Maximum distance from the pickup store (km)', 'Empty: no limit.')}
        {field('pickupLatitude', 'Pickup store latitude', "Empty: the checkout's origin address, geocoded.")}
        {field('pickupLongitude', 'Pickup store longitude')}
        {field('timeoutMs', 'Answer within (ms)', 'Shopify waits 3 to 10 seconds; after this the fallback rate (or none) is shown.')}
        {field('fallbackRate', 'Fallback flat rate', 'Shown when the courier is slow or failing. Empty: no same-day rate then.')}
        {field('quotePhone', 'Phone for checkout quotes', "The courier's quote needs a phone number; at checkout the buyer's is often not known yet. Used when neither the buyer's address nor your location's has one. International format, e.g. +27 11 555 0100. Empty: no quote then (the fallback rate or none).")}
        <s-stack direction="inline" justifyContent="end">
          <s-button variant="primary" loading={saving} onClick={save}>
            Save checkout rate
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
