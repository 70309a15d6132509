// One courier environment's credentials on the settings page: base URL, client id
// and secret, default pickup store, webhook URL and signing secret (with the previous
// secret's grace period), and its connection and webhook checks.
import { ConnectionTest, ENV_LABEL, secretDetails, WebhookTest, WebhookUrl } from './environment.tsx';
import type { Env, EnvironmentInfo } from '../types.ts';

export interface EnvForm {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  pickupStoreId: string;
  locationStores: Record<string, string>;
}

export function EnvironmentColumn(props: {
  env: Env;
  info: EnvironmentInfo;
  form: EnvForm;
  active: boolean;
  err: (path: string) => string | undefined;
  onField: (key: keyof EnvForm, value: string) => void;
  onChecked: () => void;
}) {
  const { env, info, form } = props;
  const L = ENV_LABEL[env];
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return (
    <s-section heading={`${L} environment`}>
      <s-stack gap="base">
        <s-stack direction="inline" gap="small-200">
          {props.active ? <s-badge tone="success">Active</s-badge> : <s-badge>Not active</s-badge>}
          {info.checks.connectionOk ? <s-badge tone="success">Connected</s-badge> : <s-badge tone="warning">Not tested</s-badge>}
          {info.checks.webhookVerified ? <s-badge tone="success">Webhooks verified</s-badge> : null}
        </s-stack>
        <s-url-field label={`${L} API base URL`} value={form.baseUrl} placeholder={info.defaultBaseUrl ?? 'https://api.courier.example'} error={props.err(`${env}.baseUrl`)} details={info.defaultBaseUrl ? `Empty: ${info.defaultBaseUrl}` : 'Required for this environment.'} onInput={(e) => props.onField('baseUrl', text(e))} />
        <s-text-field label={`${L} client id`} value={form.clientId} error={props.err(`${env}.clientId`)} onInput={(e) => props.onField('clientId', text(e))} />
        <s-password-field label={`${L} client secret`} value={form.clientSecret} error={props.err(`${env}.clientSecret`)} details={secretDetails(info.clientSecret, 'client secret')} onInput={(e) => props.onField('clientSecret', text(e))} />
        <s-text-field label={`${L} default pickup store`} value={form.pickupStoreId} error={props.err(`${env}.pickupStoreId`)} onInput={(e) => props.onField('pickupStoreId', text(e))} />
        <WebhookUrl info={info} label={`${L} webhook URL`} />
        <s-password-field label={`${L} webhook signing secret`} value={form.webhookSecret} error={props.err(`${env}.webhookSecret`)} details={secretDetails(info.webhookSecret, 'webhook secret')} onInput={(e) => props.onField('webhookSecret', text(e))} />
        {info.previousWebhookSecret && (
          <s-text color="subdued">
            The previous webhook secret{info.previousWebhookSecret.last4 ? ` (ends in ${info.previousWebhookSecret.last4})` : ''} is still accepted for {remaining(info.previousWebhookSecret.remainingMinutes)}.
          </s-text>
        )}
        {info.lastRejectionReason && (
          <s-banner tone="warning" heading="A courier webhook was rejected">
            {info.lastRejectionReason}
          </s-banner>
        )}
        <s-text color="subdued">Save before testing new credentials.</s-text>
        <ConnectionTest env={env} info={info} label={env === 'live' ? 'Test live connection' : 'Test connection'} onDone={props.onChecked} />
        <WebhookTest env={env} info={info} label={env === 'live' ? 'Send live test webhook' : 'Send test webhook'} onDone={props.onChecked} />
      </s-stack>
    </s-section>
  );
}

function remaining(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h ? `${h} h ${m} min` : `${m} min`;
}
