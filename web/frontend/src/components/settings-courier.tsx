// Settings › Courier: the active environment and auto-dispatch, the test and
// live courier accounts side by side (credentials, webhook, checks), and the
// shop's Shopify locations mapped to a pickup store per environment. One form.
import { get, put } from '../api.ts';
import { t } from '../i18n.ts';
import { useResource } from '../state.ts';
import { ErrorBanner, Loading } from './common.tsx';
import { EnvironmentColumn, type EnvForm } from './courier-environment.tsx';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { Env, EnvironmentInfo, SettingsPayload, ShopLocation } from '../types.ts';

const ENVS: Env[] = ['test', 'live'];

interface Form {
  activeEnvironment: Env;
  autoDispatch: boolean;
  env: Record<Env, EnvForm>;
}

function envForm(e: EnvironmentInfo): EnvForm {
  return { baseUrl: e.baseUrl ?? '', clientId: e.clientId ?? '', clientSecret: '', webhookSecret: '', pickupStoreId: e.pickupStoreId ?? '', locationStores: { ...e.locationStores } };
}

function toForm(p: SettingsPayload): Form {
  return { activeEnvironment: p.settings.activeEnvironment, autoDispatch: p.settings.autoDispatch, env: { test: envForm(p.environments.test), live: envForm(p.environments.live) } };
}

/** Only what changed: secrets are sent when typed, an emptied field clears its value. */
function envPatch(e: EnvForm, before: EnvironmentInfo): Record<string, unknown> {
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
  return p;
}

function submit(f: Form, saved: SettingsPayload): Promise<SettingsPayload> {
  const environments: Record<string, Record<string, unknown>> = {};
  for (const env of ENVS) {
    const p = envPatch(f.env[env], saved.environments[env]);
    if (Object.keys(p).length) environments[env] = p;
  }
  return put<SettingsPayload>('/api/settings', { settings: { activeEnvironment: f.activeEnvironment, autoDispatch: f.autoDispatch }, ...(Object.keys(environments).length ? { environments } : {}) });
}

const SHOWN = ['activeEnvironment', 'autoDispatch', ...ENVS.flatMap((e) => ['baseUrl', 'clientId', 'clientSecret', 'webhookSecret', 'pickupStoreId', 'locationStores'].map((k) => `${e}.${k}`))];

export function CourierSettings(props: SectionProps) {
  const f = useSettingsForm({ source: props.payload, toForm, submit, onSaved: props.onSaved, savedToast: t('settings.saved'), shown: SHOWN });
  const locations = useResource<{ locations: ShopLocation[] }>('/api/locations');
  const { form } = f;
  const setEnv = (env: Env, patch: Partial<EnvForm>) => f.update((x) => ({ ...x, env: { ...x.env, [env]: { ...x.env[env], ...patch } } }));
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  // A check reads the saved credentials; its result comes back with the settings.
  const refresh = async () => {
    const res = await get<SettingsPayload>('/api/settings').catch(() => null);
    if (res) props.onSaved(res);
  };

  return (
    <SectionForm id="courier" form={f}>
      <s-section heading={t('settings.section.courier')}>
        <s-stack gap="base">
          <s-select label={t('settings.activeEnvironment')} value={form.activeEnvironment} error={f.err('activeEnvironment')} details={t('settings.activeEnvironment.details')} onChange={(e) => f.set('activeEnvironment', text(e) as Env)}>
            <s-option value="test">{t('env.name.test')}</s-option>
            <s-option value="live">{t('env.name.live')}</s-option>
          </s-select>
          <s-checkbox label={t('settings.autoDispatch')} checked={form.autoDispatch} details={t('settings.autoDispatch.details')} onChange={(e) => f.set('autoDispatch', e.currentTarget.checked)} />
        </s-stack>
      </s-section>
      <s-grid gridTemplateColumns="repeat(auto-fit, minmax(300px, 1fr))" gap="base">
        {ENVS.map((env) => (
          <EnvironmentColumn key={env} env={env} info={props.payload.environments[env]} form={form.env[env]} active={form.activeEnvironment === env} err={f.err} onField={(k, v) => setEnv(env, { [k]: v })} onChecked={refresh} />
        ))}
      </s-grid>
      <s-section heading={t('settings.locations')}>
        <s-stack gap="base">
          <s-paragraph>{t('settings.locations.intro')}</s-paragraph>
          <ErrorBanner error={locations.error} heading={t('settings.locations.error')} />
          {locations.loading && !locations.data && <Loading label={t('settings.locations.loading')} />}
          {locations.data && (
            <s-table variant="auto">
              <s-table-header-row>
                <s-table-header listSlot="primary">{t('settings.locations.location')}</s-table-header>
                <s-table-header>{t('settings.locations.store', { env: 'test' })}</s-table-header>
                <s-table-header>{t('settings.locations.store', { env: 'live' })}</s-table-header>
              </s-table-header-row>
              <s-table-body>
                {locations.data.locations.map((l) => (
                  <s-table-row key={l.id}>
                    <s-table-cell>
                      <s-stack gap="none">
                        <s-text type="strong">{l.name}</s-text>
                        <s-text color="subdued">{[l.city, l.countryCode].filter(Boolean).join(', ')}</s-text>
                      </s-stack>
                    </s-table-cell>
                    {ENVS.map((env) => (
                      <s-table-cell key={env}>
                        <s-text-field
                          label={t('settings.locations.storeFor', { env, location: l.name })}
                          labelAccessibilityVisibility="exclusive"
                          placeholder={form.env[env].pickupStoreId || t('settings.locations.default')}
                          value={form.env[env].locationStores[l.id] ?? ''}
                          error={f.err(`${env}.locationStores.${l.id}`)}
                          onInput={(e) => setEnv(env, { locationStores: { ...form.env[env].locationStores, [l.id]: text(e) } })}
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
    </SectionForm>
  );
}
