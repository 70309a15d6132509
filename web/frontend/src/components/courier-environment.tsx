// One courier environment's account on Settings › Courier: base URL, client id
// and secret, default pickup store, webhook URL and signing secret (with the
// previous secret's grace period), and its connection and webhook checks.
import { t } from '../i18n.ts';
import { ConnectionTest, secretDetails, WebhookTest, WebhookUrl } from './environment.tsx';
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
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const prev = info.previousWebhookSecret;
  return (
    <s-section heading={t('env.heading', { env })}>
      <s-stack gap="base">
        <s-stack direction="inline" gap="small-200">
          {props.active ? <s-badge tone="success">{t('env.active')}</s-badge> : <s-badge>{t('env.notActive')}</s-badge>}
          {info.checks.connectionOk ? <s-badge tone="success">{t('env.connected')}</s-badge> : <s-badge tone="warning">{t('env.notTested')}</s-badge>}
          {info.checks.webhookVerified ? <s-badge tone="success">{t('env.webhooksVerified')}</s-badge> : null}
        </s-stack>
        <s-url-field label={t('env.field.baseUrl', { env })} value={form.baseUrl} placeholder={info.defaultBaseUrl ?? 'https://api.courier.example'} error={props.err(`${env}.baseUrl`)} details={info.defaultBaseUrl ? t('env.baseUrl.empty', { url: info.defaultBaseUrl }) : t('env.baseUrl.required')} onInput={(e) => props.onField('baseUrl', text(e))} />
        <s-text-field label={t('env.field.clientId', { env })} value={form.clientId} error={props.err(`${env}.clientId`)} onInput={(e) => props.onField('clientId', text(e))} />
        <s-password-field label={t('env.field.clientSecret', { env })} value={form.clientSecret} error={props.err(`${env}.clientSecret`)} details={secretDetails(info.clientSecret)} onInput={(e) => props.onField('clientSecret', text(e))} />
        <s-text-field label={t('env.field.pickupStore', { env })} value={form.pickupStoreId} error={props.err(`${env}.pickupStoreId`)} onInput={(e) => props.onField('pickupStoreId', text(e))} />
        <WebhookUrl info={info} />
        <s-password-field label={t('env.field.webhookSecret', { env })} value={form.webhookSecret} error={props.err(`${env}.webhookSecret`)} details={secretDetails(info.webhookSecret)} onInput={(e) => props.onField('webhookSecret', text(e))} />
        {prev && <s-text color="subdued">{t('env.previousSecret', { last4: prev.last4 ?? '', hours: Math.floor(prev.remainingMinutes / 60), minutes: prev.remainingMinutes % 60 })}</s-text>}
        {info.lastRejectionReason && (
          <s-banner tone="warning" heading={t('env.rejected')}>
            {info.lastRejectionReason}
          </s-banner>
        )}
        <s-text color="subdued">{t('env.saveBeforeTesting')}</s-text>
        <ConnectionTest env={env} info={info} onDone={props.onChecked} />
        <WebhookTest env={env} info={info} onDone={props.onChecked} />
      </s-stack>
    </s-section>
  );
}
