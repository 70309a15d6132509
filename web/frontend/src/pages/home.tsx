// Home: the onboarding checklist (each step done or not from real state, with
// what to do next), and what needs attention. Once set up: the dashboard
// (components/dashboard.tsx), with the checklist folded away.
import { useState } from 'preact/hooks';
import { ApiError, put, toast } from '../api.ts';
import { DoneBadge, ErrorBanner, Loading } from '../components/common.tsx';
import { Dashboard } from '../components/dashboard.tsx';
import { ConnectionTest, ENV_LABEL, QuickEnvForm, secretDetails, WebhookTest, WebhookUrl } from '../components/environment.tsx';
import { linkTo, navigate } from '../router.ts';
import { useResource } from '../state.ts';
import type { DeliveryList, OnboardingStep, SettingsPayload } from '../types.ts';

export function Home() {
  const s = useResource<SettingsPayload>('/api/settings');
  const attention = useResource<DeliveryList>('/api/deliveries?status=NEEDS_ATTENTION,FAILED&limit=1');
  const data = s.data;
  const needs = attention.data ? (attention.data.counts.NEEDS_ATTENTION ?? 0) + (attention.data.counts.FAILED ?? 0) : 0;

  return (
    <s-page heading="Same-Day Dispatch">
      <s-button slot="secondary-actions" onClick={() => navigate('/settings')}>
        Settings
      </s-button>
      {needs > 0 && (
        <s-banner tone="warning" heading={`${needs} ${needs === 1 ? 'delivery needs' : 'deliveries need'} your attention`}>
          <s-link href="/deliveries?status=NEEDS_ATTENTION,FAILED" onClick={linkTo('/deliveries?status=NEEDS_ATTENTION,FAILED')}>
            Review deliveries
          </s-link>
        </s-banner>
      )}
      {(attention.data?.duplicateBookings ?? 0) > 0 && (
        <s-banner tone="critical" heading={`${attention.data!.duplicateBookings} ${attention.data!.duplicateBookings === 1 ? 'order was' : 'orders were'} booked more than once by the courier`}>
          <s-link href="/deliveries" onClick={linkTo('/deliveries')}>
            Review deliveries and cancel the extra courier orders
          </s-link>
        </s-banner>
      )}
      {(attention.data?.unmatchedEvents ?? 0) > 0 && (
        <s-banner tone="warning" heading={`${attention.data!.unmatchedEvents} courier ${attention.data!.unmatchedEvents === 1 ? 'update matches' : 'updates match'} no delivery`}>
          <s-link href="/unmatched" onClick={linkTo('/unmatched')}>
            Review unmatched courier events
          </s-link>
        </s-banner>
      )}
      <ErrorBanner error={s.error} heading="Could not load your set-up" />
      {!data && !s.error && <Loading label="Loading your set-up…" />}
      {data && <Dashboard always={data.onboarding.complete} />}
      {data &&
        (data.onboarding.complete ? (
          // Set up: the checklist folds away, still one click from here.
          <details data-testid="onboarding-folded">
            <summary style={{ cursor: 'pointer', padding: '8px 0' }}>You are all set: show the set-up checklist (all {data.onboarding.steps.length} steps done)</summary>
            <Checklist data={data} onChange={(p) => (p ? s.set(p) : void s.reload())} />
          </details>
        ) : (
          <Checklist data={data} onChange={(p) => (p ? s.set(p) : void s.reload())} />
        ))}
    </s-page>
  );
}

function Checklist(props: { data: SettingsPayload; onChange: (p?: SettingsPayload) => void }) {
  const { onboarding, environments, settings } = props.data;
  const env = onboarding.environment;
  const info = environments[env];
  const doneCount = onboarding.steps.filter((x) => x.done).length;
  const reload = () => props.onChange();
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
      <s-section heading={onboarding.complete ? 'Set-up checklist' : 'Set up same-day dispatch'}>
        <s-stack gap="small-200">
          <s-paragraph>
            {onboarding.complete
              ? 'Paid same-day orders are booked with the live courier automatically. Deliveries that need you appear under Deliveries.'
              : `Finish these steps to book couriers automatically. You are setting up the ${ENV_LABEL[env].toLowerCase()} environment.`}
          </s-paragraph>
          <s-text>
            {doneCount} of {onboarding.steps.length} steps done
          </s-text>
          <s-progress value={doneCount} max={onboarding.steps.length} accessibilityLabel="Set-up progress" tone={onboarding.complete ? 'success' : 'info'} />
        </s-stack>
      </s-section>
      {onboarding.steps.map((step, i) => {
        const showBody = !step.done || expanded.has(step.id);
        return (
          <s-section key={`${step.id}-${env}`} heading={`${i + 1}. ${step.title}`} accessibilityLabel={step.title}>
            <s-stack gap="base">
              <s-stack direction="inline" gap="small-200" alignItems="center">
                <DoneBadge done={step.done} />
                <s-text color="subdued">{step.detail}</s-text>
                {step.done && step.id !== 'live' && (
                  <s-button variant="tertiary" onClick={() => toggle(step.id)} accessibilityLabel={`${showBody ? 'Hide' : 'Change'}: ${step.title}`}>
                    {showBody ? 'Hide' : 'Change'}
                  </s-button>
                )}
              </s-stack>
              {showBody && <StepBody key={env} step={step} data={props.data} onChange={props.onChange} reload={reload} />}
            </s-stack>
          </s-section>
        );
      })}
      {settings.autoDispatch && onboarding.complete && (
        <s-section heading="What happens next">
          <s-paragraph>Each paid order with a same-day shipping method is booked with the courier. Its status, price and tracking appear under Deliveries and on the order page.</s-paragraph>
        </s-section>
      )}
      {!info && <s-banner tone="critical">The {env} environment is missing.</s-banner>}
    </>
  );
}

function StepBody(props: { step: OnboardingStep; data: SettingsPayload; onChange: (p?: SettingsPayload) => void; reload: () => void }) {
  const { step, data } = props;
  const env = data.onboarding.environment;
  const info = data.environments[env];
  switch (step.id) {
    case 'credentials':
      return (
        <QuickEnvForm
          key={`cred-${env}`}
          env={env}
          submitLabel="Save credentials"
          onSaved={props.onChange}
          fields={[
            { key: 'clientId', label: 'Client id', initial: info.clientId ?? '' },
            { key: 'clientSecret', label: 'Client secret', kind: 'password', details: secretDetails(info.clientSecret, 'client secret') },
            { key: 'baseUrl', label: 'API base URL', kind: 'url', initial: info.baseUrl ?? '', placeholder: info.defaultBaseUrl ?? 'https://api.courier.example', details: info.defaultBaseUrl ? `Leave empty for ${info.defaultBaseUrl}` : 'The courier API base URL.' },
          ]}
        />
      );
    case 'connection':
      return <ConnectionTest env={env} info={info} onDone={props.reload} />;
    case 'pickupStore':
      return (
        <s-stack gap="small-200">
          <QuickEnvForm
            key={`store-${env}`}
            env={env}
            submitLabel="Save pickup store"
            onSaved={props.onChange}
            fields={[{ key: 'pickupStoreId', label: 'Pickup store id', initial: info.pickupStoreId ?? '', details: 'The courier store id orders are collected from. Map each Shopify location to its own store in Settings.' }]}
          />
        </s-stack>
      );
    case 'webhook':
      return (
        <s-stack gap="base">
          <WebhookUrl info={info} />
          <QuickEnvForm
            key={`hook-${env}`}
            env={env}
            submitLabel="Save webhook secret"
            onSaved={props.onChange}
            fields={[{ key: 'webhookSecret', label: 'Webhook signing secret', kind: 'password', details: secretDetails(info.webhookSecret, 'webhook secret') }]}
          />
        </s-stack>
      );
    case 'testWebhook':
      return <WebhookTest env={env} info={info} onDone={props.reload} />;
    case 'autoDispatch':
      return <AutoDispatch on={data.settings.autoDispatch} onChange={props.onChange} />;
    case 'live':
      return env === 'live' ? null : <GoLive data={data} onChange={props.onChange} reload={props.reload} />;
  }
}

function AutoDispatch(props: { on: boolean; onChange: (p?: SettingsPayload) => void }) {
  const [busy, setBusy] = useState(false);
  async function toggle() {
    setBusy(true);
    try {
      props.onChange(await put<SettingsPayload>('/api/settings', { settings: { autoDispatch: !props.on } }));
      toast(props.on ? 'Auto-dispatch is off' : 'Auto-dispatch is on');
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setBusy(false);
    }
  }
  return (
    <s-stack direction="inline">
      <s-button variant={props.on ? 'secondary' : 'primary'} loading={busy} onClick={toggle}>
        {props.on ? 'Turn off auto-dispatch' : 'Turn on auto-dispatch'}
      </s-button>
    </s-stack>
  );
}

function GoLive(props: { data: SettingsPayload; onChange: (p?: SettingsPayload) => void; reload: () => void }) {
  const live = props.data.environments.live;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function switchNow() {
    setBusy(true);
    try {
      props.onChange(await put<SettingsPayload>('/api/settings', { settings: { activeEnvironment: 'live' } }));
      setError(null);
      toast('Switched to live');
    } catch (e) {
      setError(e instanceof ApiError ? (e.errors.activeEnvironment ?? e.message) : String(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <s-stack gap="base">
      <s-paragraph>Set up the live courier app like the test one: credentials, a passing connection test, the pickup store and the webhook. New orders then go to the live courier; test orders never do.</s-paragraph>
      <QuickEnvForm
        key="live-cred"
        env="live"
        submitLabel="Save live credentials"
        onSaved={props.onChange}
        fields={[
          { key: 'clientId', label: 'Live client id', initial: live.clientId ?? '' },
          { key: 'clientSecret', label: 'Live client secret', kind: 'password', details: secretDetails(live.clientSecret, 'live client secret') },
          { key: 'baseUrl', label: 'Live API base URL', kind: 'url', initial: live.baseUrl ?? '', placeholder: live.defaultBaseUrl ?? 'https://api.courier.example', details: live.defaultBaseUrl ? `Leave empty for ${live.defaultBaseUrl}` : 'The live courier API base URL.' },
        ]}
      />
      <ConnectionTest env="live" info={live} label="Test live connection" onDone={props.reload} />
      <QuickEnvForm
        key="live-store"
        env="live"
        submitLabel="Save live pickup store"
        onSaved={props.onChange}
        fields={[{ key: 'pickupStoreId', label: 'Live pickup store id', initial: live.pickupStoreId ?? '' }]}
      />
      <WebhookUrl info={live} label="Live webhook URL" />
      <QuickEnvForm
        key="live-hook"
        env="live"
        submitLabel="Save live webhook secret"
        onSaved={props.onChange}
        fields={[{ key: 'webhookSecret', label: 'Live webhook signing secret', kind: 'password', details: secretDetails(live.webhookSecret, 'live webhook secret') }]}
      />
      {error && <s-banner tone="critical">{error}</s-banner>}
      <s-stack direction="inline" gap="base" alignItems="center">
        <s-button variant="primary" tone="critical" loading={busy} disabled={!props.data.onboarding.canSwitchToLive} onClick={switchNow}>
          Switch to live
        </s-button>
        {!props.data.onboarding.canSwitchToLive && <s-text color="subdued">{props.data.onboarding.liveBlocker}</s-text>}
      </s-stack>
    </s-stack>
  );
}
