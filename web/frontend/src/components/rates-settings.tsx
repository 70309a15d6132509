// Settings › Checkout rate: the same-day price at checkout, and what Shopify
// needs for it (the write_shipping permission, a plan with carrier-calculated
// shipping). Saving syncs the carrier service with Shopify. One form.
import { post, put } from '../api.ts';
import { t, tOr } from '../i18n.ts';
import { useResource } from '../state.ts';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { RatesStatus, Settings, SettingsPayload } from '../types.ts';

type Rates = Settings['rates'];
type Form = Record<'serviceName' | 'serviceCode' | 'markupPercent' | 'fixedFee' | 'freeAbove' | 'maxDistanceKm' | 'fallbackRate' | 'timeoutMs' | 'pickupLatitude' | 'pickupLongitude' | 'quotePhone', string> & { enabled: boolean; rounding: Rates['rounding'] };

// Rates still work with these; the rest stop them.
const WARNINGS = new Set<RatesStatus['problems'][number]['code']>(['plan_unknown', 'no_quote_phone']);
const str = (v: string | number | null) => (v === null ? '' : String(v));
const num = (v: string) => (v.trim() === '' ? null : Number(v));

function toForm(p: SettingsPayload): Form {
  const r = p.settings.rates;
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

/** A problem in the merchant's language, with what the status says; the server's words for a code this page does not know. */
function problemText(p: RatesStatus['problems'][number], st: RatesStatus): string {
  return p.code === 'create_refused' ? p.message : tOr(`rates.problem.${p.code}`, p.message, { plan: st.plan.name });
}

export function RatesSettings(props: SectionProps) {
  const status = useResource<RatesStatus>('/api/rates/status');
  const f = useSettingsForm({
    source: props.payload,
    toForm,
    async submit(form) {
      const saved = await put<SettingsPayload>('/api/settings', { settings: { rates: toPatch(form) } });
      await post<RatesStatus>('/api/rates/sync');
      await status.reload();
      return saved;
    },
    onSaved: props.onSaved,
    savedToast: t('rates.saved'),
    shown: ['rates'],
  });
  const { form } = f;
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const st = status.data;
  const field = (k: keyof Form, details?: string) => (
    <s-text-field label={t(`rates.${k}`)} value={form[k] as string} error={f.err(`rates.${k}`)} details={details} onInput={(e) => f.set(k, text(e) as never)} />
  );
  return (
    <SectionForm id="rates" form={f}>
      <s-section heading={t('rates.heading')}>
        <s-stack gap="base">
          {status.error && <s-banner tone="critical">{status.error}</s-banner>}
          {st && st.problems.map((p) => <s-banner key={p.code} tone={WARNINGS.has(p.code) ? 'warning' : 'critical'}>{problemText(p, st)}</s-banner>)}
          {st && (
            <s-text color="subdued">
              {st.carrierService ? t('rates.registered', { name: st.carrierService.name ?? '', active: st.carrierService.active ? 'yes' : 'no' }) : t('rates.notRegistered')} {t('rates.plan', { plan: st.plan.name })}
            </s-text>
          )}
          <s-checkbox label={t('rates.enabled')} checked={form.enabled} onChange={(e) => f.set('enabled', e.currentTarget.checked)} details={t('rates.enabled.details')} />
          {field('serviceName')}
          {field('serviceCode', t('rates.serviceCode.details'))}
          {field('markupPercent')}
          {field('fixedFee')}
          {field('freeAbove', t('rates.freeAbove.details'))}
          <s-select label={t('rates.rounding')} value={form.rounding} error={f.err('rates.rounding')} onChange={(e) => f.set('rounding', text(e) as Rates['rounding'])}>
            <s-option value="none">{t('rates.rounding.none')}</s-option>
            <s-option value="up_whole">{t('rates.rounding.up_whole')}</s-option>
            <s-option value="nearest_whole">{t('rates.rounding.nearest_whole')}</s-option>
            <s-option value="up_99">{t('rates.rounding.up_99')}</s-option>
          </s-select>
          {field('maxDistanceKm', t('rates.maxDistanceKm.details'))}
          {field('pickupLatitude', t('rates.pickupLatitude.details'))}
          {field('pickupLongitude')}
          {field('timeoutMs', t('rates.timeoutMs.details'))}
          {field('fallbackRate', t('rates.fallbackRate.details'))}
          {field('quotePhone', t('rates.quotePhone.details'))}
        </s-stack>
      </s-section>
    </SectionForm>
  );
}
