// The onboarding checklist on Home: each step done or not from real state
// (web/admin/onboarding.ts), with what to do next in place.
import { useState } from 'preact/hooks';
import { ApiError, put, toast } from '../api.ts';
import { t } from '../i18n.ts';
import { DoneBadge } from './common.tsx';
import { ConnectionTest, QuickEnvForm, secretDetails, WebhookTest, WebhookUrl, type QuickField } from './environment.tsx';
import type { EnvironmentInfo, Onboarding, OnboardingStep, SettingsPayload } from '../types.ts';

/** A step's title and detail in the merchant's language (the server's English is the same catalogue's). */
export function stepText(step: OnboardingStep, onboarding: Onboarding, webhookUrl: string): { title: string; detail: string } {
  const env = onboarding.environment;
  const title = t(`onboarding.${step.id}.title`, { env });
  if (step.id === 'live' && !step.done && onboarding.liveBlockerCode) return { title, detail: t(`onboarding.liveBlocker.${onboarding.liveBlockerCode}`) };
  return { title, detail: t(`onboarding.${step.id}.${step.done ? 'done' : 'todo'}`, { url: webhookUrl }) };
}

export function Checklist(props: { data: SettingsPayload; onChange: (p?: SettingsPayload) => void }) {
  const { onboarding, environments, settings } = props.data;
  const env = onboarding.environment;
  const info = environments[env];
  const doneCount = onboarding.steps.filter((x) => x.done).length;
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <>
      <s-section heading={onboarding.complete ? t('onboarding.heading.done') : t('onboarding.heading.todo')}>
        <s-stack gap="small-200">
          <s-paragraph>{onboarding.complete ? t('onboarding.intro.done') : t('onboarding.intro.todo', { env })}</s-paragraph>
          <s-text>{t('onboarding.progress', { done: doneCount, total: onboarding.steps.length })}</s-text>
          <s-progress value={doneCount} max={onboarding.steps.length} accessibilityLabel={t('onboarding.progress.label')} tone={onboarding.complete ? 'success' : 'info'} />
        </s-stack>
      </s-section>
      {onboarding.steps.map((step, i) => {
        const showBody = !step.done || expanded.has(step.id);
        const { title, detail } = stepText(step, onboarding, info.webhookUrl);
        return (
          <s-section key={`${step.id}-${env}`} heading={`${i + 1}. ${title}`} accessibilityLabel={title}>
            <s-stack gap="base">
              <s-stack direction="inline" gap="small-200" alignItems="center">
                <DoneBadge done={step.done} />
                <s-text color="subdued">{detail}</s-text>
                {step.done && step.id !== 'live' && (
                  <s-button variant="tertiary" onClick={() => toggle(step.id)} accessibilityLabel={t(showBody ? 'onboarding.hide' : 'onboarding.change', { step: title })}>
                    {showBody ? t('common.hide') : t('common.change')}
                  </s-button>
                )}
              </s-stack>
              {showBody && <StepBody key={env} step={step} data={props.data} onChange={props.onChange} />}
            </s-stack>
          </s-section>
        );
      })}
      {settings.autoDispatch && onboarding.complete && (
        <s-section heading={t('onboarding.next.heading')}>
          <s-paragraph>{t('onboarding.next.body')}</s-paragraph>
        </s-section>
      )}
    </>
  );
}

/** The credential fields of an environment; `live` names them as the live ones (the step that sets up live beside test). */
function credentialFields(info: EnvironmentInfo, live: boolean): QuickField[] {
  const label = (key: string) => t(live ? `env.live.${key}` : `env.${key}`);
  return [
    { key: 'clientId', label: label('clientId'), initial: info.clientId ?? '' },
    { key: 'clientSecret', label: label('clientSecret'), kind: 'password', details: secretDetails(info.clientSecret) },
    { key: 'baseUrl', label: label('baseUrl'), kind: 'url', initial: info.baseUrl ?? '', placeholder: info.defaultBaseUrl ?? 'https://api.courier.example', details: info.defaultBaseUrl ? t('env.baseUrl.default', { url: info.defaultBaseUrl }) : t('env.baseUrl.required') },
  ];
}

function StepBody(props: { step: OnboardingStep; data: SettingsPayload; onChange: (p?: SettingsPayload) => void }) {
  const { step, data } = props;
  const env = data.onboarding.environment;
  const info = data.environments[env];
  const reload = () => props.onChange();
  switch (step.id) {
    case 'credentials':
      return <QuickEnvForm key={`cred-${env}`} env={env} submitLabel={t('onboarding.credentials.save')} onSaved={props.onChange} fields={credentialFields(info, false)} />;
    case 'connection':
      return <ConnectionTest env={env} info={info} onDone={reload} />;
    case 'pickupStore':
      return (
        <QuickEnvForm
          key={`store-${env}`}
          env={env}
          submitLabel={t('onboarding.pickupStore.save')}
          onSaved={props.onChange}
          fields={[{ key: 'pickupStoreId', label: t('env.pickupStore'), initial: info.pickupStoreId ?? '', details: t('onboarding.pickupStore.details') }]}
        />
      );
    case 'webhook':
      return (
        <s-stack gap="base">
          <WebhookUrl info={info} />
          <QuickEnvForm
            key={`hook-${env}`}
            env={env}
            submitLabel={t('onboarding.webhook.save')}
            onSaved={props.onChange}
            fields={[{ key: 'webhookSecret', label: t('env.webhookSecret'), kind: 'password', details: secretDetails(info.webhookSecret) }]}
          />
        </s-stack>
      );
    case 'testWebhook':
      return <WebhookTest env={env} info={info} onDone={reload} />;
    case 'autoDispatch':
      return <AutoDispatch on={data.settings.autoDispatch} onChange={props.onChange} />;
    case 'live':
      return env === 'live' ? null : <GoLive data={data} onChange={props.onChange} />;
  }
}

function AutoDispatch(props: { on: boolean; onChange: (p?: SettingsPayload) => void }) {
  const [busy, setBusy] = useState(false);
  async function toggle() {
    setBusy(true);
    try {
      props.onChange(await put<SettingsPayload>('/api/settings', { settings: { autoDispatch: !props.on } }));
      toast(props.on ? t('onboarding.autoDispatch.off') : t('onboarding.autoDispatch.on'));
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setBusy(false);
    }
  }
  return (
    <s-stack direction="inline">
      <s-button variant={props.on ? 'secondary' : 'primary'} loading={busy} onClick={toggle}>
        {props.on ? t('onboarding.autoDispatch.turnOff') : t('onboarding.autoDispatch.turnOn')}
      </s-button>
    </s-stack>
  );
}

function GoLive(props: { data: SettingsPayload; onChange: (p?: SettingsPayload) => void }) {
  const live = props.data.environments.live;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reload = () => props.onChange();
  async function switchNow() {
    setBusy(true);
    try {
      props.onChange(await put<SettingsPayload>('/api/settings', { settings: { activeEnvironment: 'live' } }));
      setError(null);
      toast(t('onboarding.live.switched'));
    } catch (e) {
      setError(e instanceof ApiError ? (e.errors.activeEnvironment ?? e.message) : String(e));
    } finally {
      setBusy(false);
    }
  }
  const blocker = props.data.onboarding.liveBlockerCode;
  return (
    <s-stack gap="base">
      <s-paragraph>{t('onboarding.live.intro')}</s-paragraph>
      <QuickEnvForm key="live-cred" env="live" submitLabel={t('onboarding.live.saveCredentials')} onSaved={props.onChange} fields={credentialFields(live, true)} />
      <ConnectionTest env="live" info={live} onDone={reload} />
      <QuickEnvForm key="live-store" env="live" submitLabel={t('onboarding.live.saveStore')} onSaved={props.onChange} fields={[{ key: 'pickupStoreId', label: t('env.live.pickupStore'), initial: live.pickupStoreId ?? '' }]} />
      <WebhookUrl info={live} />
      <QuickEnvForm
        key="live-hook"
        env="live"
        submitLabel={t('onboarding.live.saveSecret')}
        onSaved={props.onChange}
        fields={[{ key: 'webhookSecret', label: t('env.live.webhookSecret'), kind: 'password', details: secretDetails(live.webhookSecret) }]}
      />
      {error && <s-banner tone="critical">{error}</s-banner>}
      <s-stack direction="inline" gap="base" alignItems="center">
        <s-button variant="primary" tone="critical" loading={busy} disabled={!props.data.onboarding.canSwitchToLive} onClick={switchNow}>
          {t('onboarding.live.switch')}
        </s-button>
        {blocker && <s-text color="subdued">{t(`onboarding.liveBlocker.${blocker}`)}</s-text>}
      </s-stack>
    </s-stack>
  );
}
