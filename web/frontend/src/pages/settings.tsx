// Settings: the test and live courier environments side by side, dispatch
// rules, pickup locations, package rules, fulfillment and pricing. One Save;
// the API validates everything and answers with errors per field.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldError, put, toast } from '../api.ts';
import { ErrorBanner, Loading } from '../components/common.tsx';
import { ENV_LABEL, secretDetails } from '../components/environment.tsx';
import { EnvironmentColumn } from '../components/courier-environment.tsx';
import type { EnvForm } from '../components/courier-environment.tsx';
import { useResource } from '../state.ts';
import { DataRequests } from '../components/data-requests.tsx';
import { TrackingPageSettings } from '../components/tracking-page.tsx';
import { RatesSettings } from '../components/rates-settings.tsx';
import { WindowsSettings } from '../components/windows-settings.tsx';
import { FlowSettings } from '../components/flow-settings.tsx';
import type { Env, EnvironmentInfo, Settings, SettingsPayload, ShopLocation } from '../types.ts';

interface Form {
  activeEnvironment: Env;
  autoDispatch: boolean;
  shippingLines: string;
  countries: string;
  dispatchTestOrders: boolean;
  serviceType: string;
  defaultWeightKg: string;
  sizes: Array<{ maxKg: string; size: string }>;
  largestSize: string;
  category: string;
  maxDeliveryPrice: string;
  trigger: Settings['fulfillment']['trigger'];
  notifyCustomer: boolean;
  courierName: string;
  trackingUrlTemplate: string;
  env: Record<Env, EnvForm>;
  /** The shop's own Nominatim URL; empty: the app-wide geocoder (if any). */
  geocoderUrl: string;
  geocoderKey: string;
}

const ENVS: Env[] = ['test', 'live'];

function toForm(p: SettingsPayload): Form {
  const s = p.settings;
  const env = (e: EnvironmentInfo): EnvForm => ({
    baseUrl: e.baseUrl ?? '',
    clientId: e.clientId ?? '',
    clientSecret: '',
    webhookSecret: '',
    pickupStoreId: e.pickupStoreId ?? '',
    locationStores: { ...e.locationStores },
  });
  return {
    activeEnvironment: s.activeEnvironment,
    autoDispatch: s.autoDispatch,
    shippingLines: s.eligibility.shippingLines.join(', '),
    countries: s.eligibility.countries.join(', '),
    dispatchTestOrders: s.eligibility.dispatchTestOrders,
    serviceType: s.serviceType,
    defaultWeightKg: s.package.defaultWeightKg,
    sizes: s.package.sizes.map((r) => ({ ...r })),
    largestSize: s.package.largestSize,
    category: s.package.category,
    maxDeliveryPrice: s.maxDeliveryPrice ?? '',
    trigger: s.fulfillment.trigger,
    notifyCustomer: s.fulfillment.notifyCustomer,
    courierName: s.fulfillment.courierName,
    trackingUrlTemplate: s.fulfillment.trackingUrlTemplate ?? '',
    env: { test: env(p.environments.test), live: env(p.environments.live) },
    geocoderUrl: p.geocoder.own?.url ?? '',
    geocoderKey: '',
  };
}

const list = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean);

function toPatch(f: Form, saved: SettingsPayload) {
  const settings = {
    activeEnvironment: f.activeEnvironment,
    autoDispatch: f.autoDispatch,
    eligibility: { shippingLines: list(f.shippingLines), countries: list(f.countries).map((c) => c.toUpperCase()), dispatchTestOrders: f.dispatchTestOrders },
    serviceType: f.serviceType,
    package: { defaultWeightKg: f.defaultWeightKg, sizes: f.sizes, largestSize: f.largestSize, category: f.category },
    maxDeliveryPrice: f.maxDeliveryPrice.trim() || null,
    fulfillment: { trigger: f.trigger, notifyCustomer: f.notifyCustomer, courierName: f.courierName, trackingUrlTemplate: f.trackingUrlTemplate.trim() || null },
  };
  const environments: Record<string, Record<string, unknown>> = {};
  for (const env of ENVS) {
    const e = f.env[env];
    const before = saved.environments[env];
    const p: Record<string, unknown> = {};
    if ((e.baseUrl.trim() || null) !== before.baseUrl) p.baseUrl = e.baseUrl.trim() || null;
    if ((e.clientId.trim() || null) !== before.clientId) p.clientId = e.clientId.trim() || null;
    if (e.clientSecret.trim()) p.clientSecret = e.clientSecret.trim();
    if (e.webhookSecret.trim()) p.webhookSecret = e.webhookSecret.trim();
    if ((e.pickupStoreId.trim() || null) !== before.pickupStoreId) p.pickupStoreId = e.pickupStoreId.trim() || null;
    const stores: Record<string, string | null> = {};
    for (const [loc, store] of Object.entries(e.locationStores)) {
      const v = store.trim();
      if (v && v !== before.locationStores[loc]) stores[loc] = v;
      if (!v && before.locationStores[loc]) stores[loc] = null;
    }
    if (Object.keys(stores).length) p.locationStores = stores;
    if (Object.keys(p).length) environments[env] = p;
  }
  const geocoder = geocoderPatch(f, saved);
  return { settings, ...(Object.keys(environments).length ? { environments } : {}), ...(geocoder ? { geocoder } : {}) };
}

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

/** Error keys a field on this page shows; anything else goes to the banner. */
const SHOWN = [
  'activeEnvironment', 'autoDispatch', 'eligibility.shippingLines', 'eligibility.countries', 'eligibility.dispatchTestOrders', 'serviceType',
  'package.defaultWeightKg', 'package.sizes', 'package.largestSize', 'package.category', 'maxDeliveryPrice', 'fulfillment.trigger',
  'fulfillment.notifyCustomer', 'fulfillment.courierName', 'fulfillment.trackingUrlTemplate', 'geocoder.url', 'geocoder.apiKey',
  ...ENVS.flatMap((e) => ['baseUrl', 'clientId', 'clientSecret', 'webhookSecret', 'pickupStoreId', 'locationStores'].map((k) => `${e}.${k}`)),
];

export function SettingsPage() {
  const s = useResource<SettingsPayload>('/api/settings');
  const locations = useResource<{ locations: ShopLocation[] }>('/api/locations');
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (s.data && !form) setForm(toForm(s.data));
  }, [s.data]);

  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => (f ? { ...f, [key]: value } : f));
  const setEnv = (env: Env, key: keyof EnvForm, value: string) => setForm((f) => (f ? { ...f, env: { ...f.env, [env]: { ...f.env[env], [key]: value } } } : f));
  const setLocation = (env: Env, loc: string, value: string) =>
    setForm((f) => (f ? { ...f, env: { ...f.env, [env]: { ...f.env[env], locationStores: { ...f.env[env].locationStores, [loc]: value } } } } : f));
  const err = (path: string) => fieldError(errors, path);
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const checked = (e: Event) => (e.currentTarget as HTMLInputElement).checked;

  async function save() {
    if (!form || !s.data) return;
    setSaving(true);
    try {
      const saved = await put<SettingsPayload>('/api/settings', toPatch(form, s.data));
      s.set(saved);
      setForm(toForm(saved));
      setErrors({});
      setBanner(null);
      toast('Settings saved');
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.errors).length) {
        setErrors(e.errors);
        const other = Object.entries(e.errors).filter(([k]) => !SHOWN.some((p) => k === p || k.startsWith(`${p}.`)));
        setBanner(`${Object.keys(e.errors).length === 1 ? 'A setting needs' : 'Some settings need'} fixing before they can be saved.${other.length ? ` ${other.map(([k, v]) => `${k}: ${v}`).join('; ')}` : ''}`);
      } else {
        setBanner((e as Error).message);
      }
      toast('Settings not saved', true);
    } finally {
      setSaving(false);
    }
  }

  const refresh = async () => {
    const p = await s.reload();
    // Keep what the merchant typed; take the new check results.
    if (p) s.set(p);
  };

  return (
    <s-page heading="Settings">
      <s-button slot="primary-action" variant="primary" loading={saving} disabled={!form} onClick={save}>
        Save
      </s-button>
      <ErrorBanner error={s.error} heading="Could not load settings" />
      {banner && (
        <s-banner tone="critical" heading="Settings not saved">
          {banner}
        </s-banner>
      )}
      {!form || !s.data ? (
        !s.error && <Loading label="Loading settings…" />
      ) : (
        <>
          <s-section heading="Courier">
            <s-stack gap="base">
              <s-select label="Active environment" value={form.activeEnvironment} error={err('activeEnvironment')} details="New orders go to this environment." onChange={(e) => set('activeEnvironment', text(e) as Env)}>
                <s-option value="test">Test</s-option>
                <s-option value="live">Live</s-option>
              </s-select>
              <s-checkbox label="Dispatch paid orders automatically" checked={form.autoDispatch} onChange={(e) => set('autoDispatch', checked(e))} details="Off: orders are recorded and you dispatch them yourself." />
            </s-stack>
          </s-section>
          <s-grid gridTemplateColumns="repeat(auto-fit, minmax(320px, 1fr))" gap="base">
            {ENVS.map((env) => (
              <EnvironmentColumn key={env} env={env} info={s.data!.environments[env]} form={form.env[env]} active={form.activeEnvironment === env} err={err} onField={(k, v) => setEnv(env, k, v)} onChecked={refresh} />
            ))}
          </s-grid>

          <s-section heading="Pickup locations">
            <s-stack gap="base">
              <s-paragraph>Orders fulfilled from a Shopify location are collected from its courier store. Locations without one use the default pickup store of the environment.</s-paragraph>
              <ErrorBanner error={locations.error} heading="Could not read your Shopify locations" />
              {locations.loading && !locations.data && <Loading label="Reading your Shopify locations…" />}
              {locations.data && (
                <s-table variant="auto">
                  <s-table-header-row>
                    <s-table-header listSlot="primary">Location</s-table-header>
                    <s-table-header>Test pickup store</s-table-header>
                    <s-table-header>Live pickup store</s-table-header>
                  </s-table-header-row>
                  <s-table-body>
                    {locations.data.locations.map((l) => (
                      <s-table-row key={l.id}>
                        <s-table-cell>
                          <s-stack gap="small-400">
                            <s-text type="strong">{l.name}</s-text>
                            <s-text color="subdued">{[l.city, l.countryCode].filter(Boolean).join(', ')}</s-text>
                          </s-stack>
                        </s-table-cell>
                        {ENVS.map((env) => (
                          <s-table-cell key={env}>
                            <s-text-field
                              label={`${ENV_LABEL[env]} store for ${l.name}`}
                              labelAccessibilityVisibility="exclusive"
                              placeholder={form.env[env].pickupStoreId || 'default store'}
                              value={form.env[env].locationStores[l.id] ?? ''}
                              error={err(`${env}.locationStores.${l.id}`)}
                              onInput={(e) => setLocation(env, l.id, text(e))}
                            />
                          </s-table-cell>
                        ))}
                      </s-table-row>
                    ))}
                  </s-table-body>
                </s-table>
              )}
            </s-stack>
          </s-section>

          <s-section heading="Dispatch rules">
            <s-stack gap="base">
              <s-text-field label="Same-day shipping methods" value={form.shippingLines} error={err('eligibility.shippingLines')} details="Shipping line titles or codes that get a courier, separated by commas. Empty: every shipping method." onInput={(e) => set('shippingLines', text(e))} />
              <s-text-field label="Destination countries" value={form.countries} error={err('eligibility.countries')} details="Two-letter country codes, separated by commas (e.g. ZA). Empty: any country." onInput={(e) => set('countries', text(e))} />
              <s-checkbox label="Dispatch Shopify test orders (test environment only)" checked={form.dispatchTestOrders} onChange={(e) => set('dispatchTestOrders', checked(e))} />
            </s-stack>
          </s-section>

          <s-section heading="Packages">
            <s-stack gap="base">
              <s-grid gridTemplateColumns="repeat(auto-fit, minmax(200px, 1fr))" gap="base">
                <s-text-field label="Service type" value={form.serviceType} error={err('serviceType')} onInput={(e) => set('serviceType', text(e))} />
                <s-text-field label="Package category" value={form.category} error={err('package.category')} onInput={(e) => set('category', text(e))} />
                <s-text-field label="Default weight (kg)" value={form.defaultWeightKg} error={err('package.defaultWeightKg')} details="Used when an order has no weight." onInput={(e) => set('defaultWeightKg', text(e))} />
                <s-text-field label="Largest size" value={form.largestSize} error={err('package.largestSize')} details="For anything heavier than every rule." onInput={(e) => set('largestSize', text(e))} />
              </s-grid>
              <s-heading>Size by weight</s-heading>
              {form.sizes.map((rule, i) => (
                <s-stack key={i} direction="inline" gap="base" alignItems="end">
                  <s-text-field label={`Up to kg (rule ${i + 1})`} value={rule.maxKg} error={err(`package.sizes.${i}.maxKg`)} onInput={(e) => set('sizes', form.sizes.map((r, j) => (j === i ? { ...r, maxKg: text(e) } : r)))} />
                  <s-text-field label={`Size (rule ${i + 1})`} value={rule.size} error={err(`package.sizes.${i}.size`)} onInput={(e) => set('sizes', form.sizes.map((r, j) => (j === i ? { ...r, size: text(e) } : r)))} />
                  <s-button tone="critical" variant="tertiary" onClick={() => set('sizes', form.sizes.filter((_, j) => j !== i))} accessibilityLabel={`Remove size rule ${i + 1}`}>
                    Remove
                  </s-button>
                </s-stack>
              ))}
              {err('package.sizes') && !form.sizes.some((_, i) => err(`package.sizes.${i}`)) && <s-text tone="critical">{err('package.sizes')}</s-text>}
              <s-stack direction="inline">
                <s-button onClick={() => set('sizes', [...form.sizes, { maxKg: '', size: '' }])}>Add size rule</s-button>
              </s-stack>
            </s-stack>
          </s-section>

          <s-section heading="Fulfillment and tracking">
            <s-stack gap="base">
              <s-select label="Mark the order fulfilled when the courier reports" value={form.trigger} error={err('fulfillment.trigger')} onChange={(e) => set('trigger', text(e) as Form['trigger'])}>
                <s-option value="accepted">Accepted</s-option>
                <s-option value="driver_assigned">Driver assigned</s-option>
                <s-option value="delivered">Delivered</s-option>
              </s-select>
              <s-checkbox label="Notify the customer when the order is fulfilled" checked={form.notifyCustomer} onChange={(e) => set('notifyCustomer', checked(e))} />
              <s-text-field label="Courier name shown to customers" value={form.courierName} error={err('fulfillment.courierName')} onInput={(e) => set('courierName', text(e))} />
              <s-url-field
                label="Tracking URL template"
                value={form.trackingUrlTemplate}
                error={err('fulfillment.trackingUrlTemplate')}
                placeholder="https://track.example.com/{jobId}"
                details="Placeholders: {jobId}, {orderId}, {deliveryId}, {reference}. Empty: the app's own customer tracking page."
                onInput={(e) => set('trackingUrlTemplate', text(e))}
              />
            </s-stack>
          </s-section>

          <s-section heading="Price limit">
            <s-text-field
              label="Maximum delivery price"
              value={form.maxDeliveryPrice}
              error={err('maxDeliveryPrice')}
              placeholder="No limit"
              details="When set, the app asks the courier for a quote first and holds orders priced above it for you."
              onInput={(e) => set('maxDeliveryPrice', text(e))}
            />
          </s-section>
          <s-section heading="Geocoding">
            <s-stack gap="base">
              {s.data.geocoder.active ? (
                <s-paragraph>
                  Addresses without coordinates are looked up with {s.data.geocoder.active.provider} ({s.data.geocoder.active.host}
                  {s.data.geocoder.active.source === 'shop' ? ', this shop’s own' : ', set for the whole app'}). Below {Math.round(s.data.geocoder.active.minConfidence * 100)}% confidence, the order waits for you to confirm the location.
                </s-paragraph>
              ) : (
                <s-paragraph>
                  No geocoder is configured, so orders whose address has no coordinates need the coordinates typed in. To look them up automatically, enter the URL of a Nominatim server below, or set GEOCODER_PROVIDER=nominatim in the app’s environment (and GEOCODER_URL for a self-hosted Nominatim; the public server allows one request a second), then restart the app. See docs/geocoding.md.
                </s-paragraph>
              )}
              <s-text-field
                label="Nominatim URL (this shop’s own geocoder)"
                value={form.geocoderUrl}
                error={err('geocoder.url')}
                placeholder="https://nominatim.example.com"
                details="Empty: the app-wide geocoder, if any."
                onInput={(e) => set('geocoderUrl', text(e))}
              />
              <s-password-field
                label="Geocoder API key"
                value={form.geocoderKey}
                error={err('geocoder.apiKey')}
                details={s.data.geocoder.own ? secretDetails(s.data.geocoder.own.apiKey, 'key') : 'For hosted Nominatim services that need one (sent as key=).'}
                onInput={(e) => set('geocoderKey', text(e))}
              />
            </s-stack>
          </s-section>
          <s-stack direction="inline" justifyContent="end">
            <s-button variant="primary" loading={saving} onClick={save}>
              Save settings
            </s-button>
          </s-stack>
          <TrackingPageSettings />
          <RatesSettings rates={s.data.settings.rates} />
          <FlowSettings />
          <WindowsSettings />
          <DataRequests />
        </>
      )}
    </s-page>
  );
}
