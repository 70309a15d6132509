// Pieces of the courier set-up shared by Home (onboarding) and Settings.
import { useState } from 'preact/hooks';
import { ApiError, fieldError, post, put, toast } from '../api.ts';
import { when } from '../format.ts';
import { t } from '../i18n.ts';
import type { CheckResult, Env, EnvironmentInfo, SettingsPayload } from '../types.ts';
import { copy } from './common.tsx';

export function secretDetails(s: { set: boolean; last4: string | null }): string {
  return s.set ? t('env.secret.saved', { last4: s.last4 ?? '••••' }) : t('env.secret.none');
}

export interface QuickField {
  key: 'baseUrl' | 'clientId' | 'clientSecret' | 'webhookSecret' | 'pickupStoreId';
  label: string;
  kind?: 'text' | 'password' | 'url';
  placeholder?: string;
  details?: string;
  initial?: string;
}

/** A few environment fields with their own Save (onboarding steps). Empty secret fields are not sent. */
export function QuickEnvForm(props: { env: Env; fields: QuickField[]; submitLabel: string; onSaved: (p: SettingsPayload) => void }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(props.fields.map((f) => [f.key, f.initial ?? ''])));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function save() {
    const patch: Record<string, string | null> = {};
    for (const f of props.fields) {
      const v = (values[f.key] ?? '').trim();
      if (f.kind === 'password') {
        if (v) patch[f.key] = v;
      } else if (f.key === 'baseUrl') {
        patch[f.key] = v || null;
      } else if (v || f.initial) {
        patch[f.key] = v || null;
      }
    }
    setSaving(true);
    try {
      const r = await put<SettingsPayload>('/api/settings', { environments: { [props.env]: patch } });
      setErrors({});
      setError(null);
      setValues((old) => Object.fromEntries(props.fields.map((f) => [f.key, f.kind === 'password' ? '' : (old[f.key] ?? '')])));
      toast(t('common.saved'));
      props.onSaved(r);
    } catch (e) {
      if (e instanceof ApiError) {
        setErrors(e.errors);
        setError(Object.keys(e.errors).length ? null : e.message);
      } else setError(String(e));
    } finally {
      setSaving(false);
    }
  }

  return (
    <s-stack gap="base">
      {error && <s-banner tone="critical">{error}</s-banner>}
      {props.fields.map((f) => {
        const common = {
          label: f.label,
          name: `${props.env}.${f.key}`,
          value: values[f.key] ?? '',
          error: fieldError(errors, `${props.env}.${f.key}`),
          onInput: (e: Event) => setValues((old) => ({ ...old, [f.key]: (e.currentTarget as HTMLInputElement).value })),
          ...(f.placeholder ? { placeholder: f.placeholder } : {}),
          ...(f.details ? { details: f.details } : {}),
        };
        return f.kind === 'password' ? <s-password-field key={f.key} {...common} /> : f.kind === 'url' ? <s-url-field key={f.key} {...common} /> : <s-text-field key={f.key} {...common} />;
      })}
      <s-stack direction="inline">
        <s-button variant="primary" loading={saving} onClick={save}>
          {props.submitLabel}
        </s-button>
      </s-stack>
    </s-stack>
  );
}

type CheckOutcome = CheckResult & { sent?: boolean; received?: boolean; verified?: boolean };
type CheckKind = 'connection' | 'webhook';

/** A set-up check the merchant runs from the page (long: it shows progress), and the last result. */
function CheckButton(props: { kind: CheckKind; env: Env; last: { ok: boolean; message: string; at: string } | null | undefined; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<CheckOutcome | null>(null);
  const { kind, env } = props;
  const last = result ?? (props.last ? { ...props.last, environment: env, testedAt: props.last.at } : null);
  async function run() {
    setBusy(true);
    try {
      const r = await post<CheckOutcome>(`/api/environments/${env}/${kind === 'connection' ? 'test-connection' : 'test-webhook'}`);
      setResult(r);
      toast(t(`check.${kind}.${r.ok ? 'okToast' : 'failToast'}`, { env }), !r.ok);
      props.onDone();
    } catch (e) {
      setResult({ environment: env, ok: false, message: (e as Error).message, testedAt: new Date().toISOString() });
      toast((e as Error).message, true);
    } finally {
      setBusy(false);
    }
  }
  return (
    <s-stack gap="small-200">
      <s-stack direction="inline" gap="base" alignItems="center">
        <s-button loading={busy} onClick={run}>
          {t(`check.${kind}.button`, { env })}
        </s-button>
        {busy && <s-text color="subdued">{t(`check.${kind}.busy`)}</s-text>}
      </s-stack>
      {!busy && last && (
        <s-banner tone={last.ok ? 'success' : 'critical'} heading={t(`check.${kind}.${last.ok ? 'okHeading' : 'failHeading'}`)}>
          {last.message} <s-text color="subdued">({when(last.testedAt)})</s-text>
        </s-banner>
      )}
    </s-stack>
  );
}

/** "Test connection": a token request with the saved credentials. */
export function ConnectionTest(props: { env: Env; info: EnvironmentInfo; onDone: () => void }) {
  return <CheckButton kind="connection" env={props.env} last={props.info.lastConnectionTest} onDone={props.onDone} />;
}

/** "Send test webhook": the courier signs one event to our endpoint; done when it arrived verified. */
export function WebhookTest(props: { env: Env; info: EnvironmentInfo; onDone: () => void }) {
  return <CheckButton kind="webhook" env={props.env} last={props.info.lastWebhookTest} onDone={props.onDone} />;
}

export function WebhookUrl(props: { info: EnvironmentInfo }) {
  const label = t('env.webhookUrl', { env: props.info.environment });
  return (
    <s-stack direction="inline" gap="small-200" alignItems="end">
      <s-box inlineSize="100%" maxInlineSize="640px">
        <s-text-field label={label} value={props.info.webhookUrl} readOnly details={t('env.webhookUrl.details')} />
      </s-box>
      <s-button onClick={() => copy(props.info.webhookUrl)} accessibilityLabel={t('common.copyThing', { thing: label })}>
        {t('common.copy')}
      </s-button>
    </s-stack>
  );
}
