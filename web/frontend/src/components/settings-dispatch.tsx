// Settings › Dispatch rules: which paid orders get a courier (shipping
// methods, countries, test orders), the package sent, the price limit, and the
// geocoder for addresses without coordinates. One form.
import { put } from '../api.ts';
import { percent } from '../format.ts';
import { t } from '../i18n.ts';
import { secretDetails } from './environment.tsx';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { SettingsPayload } from '../types.ts';

interface Form {
  shippingLines: string;
  countries: string;
  dispatchTestOrders: boolean;
  serviceType: string;
  defaultWeightKg: string;
  sizes: Array<{ maxKg: string; size: string }>;
  largestSize: string;
  category: string;
  maxDeliveryPrice: string;
  /** The shop's own Nominatim URL; empty: the app-wide geocoder (if any). */
  geocoderUrl: string;
  geocoderKey: string;
}

function toForm(p: SettingsPayload): Form {
  const s = p.settings;
  return {
    shippingLines: s.eligibility.shippingLines.join(', '),
    countries: s.eligibility.countries.join(', '),
    dispatchTestOrders: s.eligibility.dispatchTestOrders,
    serviceType: s.serviceType,
    defaultWeightKg: s.package.defaultWeightKg,
    sizes: s.package.sizes.map((r) => ({ ...r })),
    largestSize: s.package.largestSize,
    category: s.package.category,
    maxDeliveryPrice: s.maxDeliveryPrice ?? '',
    geocoderUrl: p.geocoder.own?.url ?? '',
    geocoderKey: '',
  };
}

const list = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean);

/** The shop's own geocoder: a URL turns it on, an empty URL turns it off; the key is sent only when typed. */
function geocoderPatch(f: Form, saved: SettingsPayload): Record<string, unknown> | null {
  const url = f.geocoderUrl.trim();
  const own = saved.geocoder.own;
  if (!url) return own ? { provider: null } : null;
  const p: Record<string, unknown> = {};
  if (!own || url !== own.url) Object.assign(p, { provider: 'nominatim', url });
  if (f.geocoderKey.trim()) p.apiKey = f.geocoderKey.trim();
  return Object.keys(p).length ? p : null;
}

function submit(f: Form, saved: SettingsPayload): Promise<SettingsPayload> {
  const settings = {
    eligibility: { shippingLines: list(f.shippingLines), countries: list(f.countries).map((c) => c.toUpperCase()), dispatchTestOrders: f.dispatchTestOrders },
    serviceType: f.serviceType,
    package: { defaultWeightKg: f.defaultWeightKg, sizes: f.sizes, largestSize: f.largestSize, category: f.category },
    maxDeliveryPrice: f.maxDeliveryPrice.trim() || null,
  };
  const geocoder = geocoderPatch(f, saved);
  return put<SettingsPayload>('/api/settings', { settings, ...(geocoder ? { geocoder } : {}) });
}

const SHOWN = ['eligibility', 'serviceType', 'package', 'maxDeliveryPrice', 'geocoder.url', 'geocoder.apiKey'];

export function DispatchSettings(props: SectionProps) {
  const f = useSettingsForm({ source: props.payload, toForm, submit, onSaved: props.onSaved, savedToast: t('settings.saved'), shown: SHOWN });
  const { form } = f;
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const setRule = (i: number, patch: Partial<Form['sizes'][number]>) => f.set('sizes', form.sizes.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const g = props.payload.geocoder;
  return (
    <SectionForm id="dispatch" form={f}>
      <s-section heading={t('settings.section.dispatch')}>
        <s-stack gap="base">
          <s-text-field label={t('settings.shippingLines')} value={form.shippingLines} error={f.err('eligibility.shippingLines')} details={t('settings.shippingLines.details')} onInput={(e) => f.set('shippingLines', text(e))} />
          <s-text-field label={t('settings.countries')} value={form.countries} error={f.err('eligibility.countries')} details={t('settings.countries.details')} onInput={(e) => f.set('countries', text(e))} />
          <s-checkbox label={t('settings.testOrders')} checked={form.dispatchTestOrders} onChange={(e) => f.set('dispatchTestOrders', e.currentTarget.checked)} />
          <s-text-field label={t('settings.maxPrice')} value={form.maxDeliveryPrice} error={f.err('maxDeliveryPrice')} placeholder={t('settings.maxPrice.none')} details={t('settings.maxPrice.details')} onInput={(e) => f.set('maxDeliveryPrice', text(e))} />
        </s-stack>
      </s-section>

      <s-section heading={t('settings.packages')}>
        <s-stack gap="base">
          <s-grid gridTemplateColumns="repeat(auto-fit, minmax(200px, 1fr))" gap="base">
            <s-text-field label={t('settings.serviceType')} value={form.serviceType} error={f.err('serviceType')} onInput={(e) => f.set('serviceType', text(e))} />
            <s-text-field label={t('settings.category')} value={form.category} error={f.err('package.category')} onInput={(e) => f.set('category', text(e))} />
            <s-text-field label={t('settings.defaultWeight')} value={form.defaultWeightKg} error={f.err('package.defaultWeightKg')} details={t('settings.defaultWeight.details')} onInput={(e) => f.set('defaultWeightKg', text(e))} />
            <s-text-field label={t('settings.largestSize')} value={form.largestSize} error={f.err('package.largestSize')} details={t('settings.largestSize.details')} onInput={(e) => f.set('largestSize', text(e))} />
          </s-grid>
          <s-heading>{t('settings.sizes')}</s-heading>
          {form.sizes.map((rule, i) => (
            <s-stack key={i} direction="inline" gap="base" alignItems="end">
              <s-text-field label={t('settings.sizes.maxKg', { n: i + 1 })} value={rule.maxKg} error={f.err(`package.sizes.${i}.maxKg`)} onInput={(e) => setRule(i, { maxKg: text(e) })} />
              <s-text-field label={t('settings.sizes.size', { n: i + 1 })} value={rule.size} error={f.err(`package.sizes.${i}.size`)} onInput={(e) => setRule(i, { size: text(e) })} />
              <s-button tone="critical" variant="tertiary" onClick={() => f.set('sizes', form.sizes.filter((_, j) => j !== i))} accessibilityLabel={t('settings.sizes.removeLabel', { n: i + 1 })}>
                {t('common.remove')}
              </s-button>
            </s-stack>
          ))}
          {f.err('package.sizes') && !form.sizes.some((_, i) => f.err(`package.sizes.${i}`)) && <s-text tone="critical">{f.err('package.sizes')}</s-text>}
          <s-stack direction="inline">
            <s-button onClick={() => f.set('sizes', [...form.sizes, { maxKg: '', size: '' }])}>{t('settings.sizes.add')}</s-button>
          </s-stack>
        </s-stack>
      </s-section>

      <s-section heading={t('settings.geocoding')}>
        <s-stack gap="base">
          <s-paragraph>
            {g.active
              ? t('settings.geocoding.active', { provider: g.active.provider, host: g.active.host, source: g.active.source, confidence: percent(g.active.minConfidence) })
              : t('settings.geocoding.none')}
          </s-paragraph>
          <s-text-field label={t('settings.geocoder.url')} value={form.geocoderUrl} error={f.err('geocoder.url')} placeholder="https://nominatim.example.com" details={t('settings.geocoder.url.details')} onInput={(e) => f.set('geocoderUrl', text(e))} />
          <s-password-field label={t('settings.geocoder.key')} value={form.geocoderKey} error={f.err('geocoder.apiKey')} details={g.own ? secretDetails(g.own.apiKey) : t('settings.geocoder.key.details')} onInput={(e) => f.set('geocoderKey', text(e))} />
        </s-stack>
      </s-section>
    </SectionForm>
  );
}
