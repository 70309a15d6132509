// Pieces of the courier set-up shared by Home (onboarding) and Settings.
import { useState } from 'preact/hooks';
import { ApiError, fieldError, post, put, toast } from '../api.ts';
import { when } from '../format.ts';
import type { CheckResult, Env, EnvironmentInfo, SettingsPayload } from '../types.ts';
import { copy } from './common.tsx';

export const ENV_LABEL: Record<Env, string> = { test: 'Test', live: 'Live' };

export function secretDetails(s: { set: boolean; last4: string | null }, what: string): string {
  return s.set ? `Saved (ends in ${s.last4 ?? '••••'}). Leave empty to keep it.` : `No ${what} saved yet.`;
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
      toast('Saved');
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

/** "Test connection": a token request with the saved credentials; long, so it shows progress. */
type CheckOutcome = CheckResult & { sent?: boolean; received?: boolean; verified?: boolean };

/** A set-up check the merchant runs from the page: its button, progress, and the last result. */
function CheckButton(props: {
  path: string;
  label: string;
  busyText: string;
  /** Toast after a run, and the heading of the last result. */
  text: { okToast: string; failToast: string; okHeading: string; failHeading: string };
  last: { ok: boolean; message: string; at: string } | null | undefined;
  env: Env;
  onDone: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<CheckOutcome | null>(null);
  const last = result ?? (props.last ? { ...props.last, environment: props.env, testedAt: props.last.at } : null);
  async function run() {
    setBusy(true);
    try {
      const r = await post<CheckOutcome>(props.path);
      setResult(r);
      toast(r.ok ? props.text.okToast : props.text.failToast, !r.ok);
      props.onDone();
    } catch (e) {
      setResult({ environment: props.env, ok: false, message: (e as Error).message, testedAt: new Date().toISOString() });
      toast((e as Error).message, true);
    } finally {
      setBusy(false);
    }
  }
  return (
    <s-stack gap="small-200">
      <s-stack direction="inline" gap="base" alignItems="center">
        <s-button loading={busy} onClick={run}>
          {props.label}
        </s-button>
        {busy && <s-text color="subdued">{props.busyText}</s-text>}
      </s-stack>
      {!busy && last && (
        <s-banner tone={last.ok ? 'success' : 'critical'} heading={last.ok ? props.text.okHeading : props.text.failHeading}>
          {last.message} <s-text color="subdued">({when(last.testedAt)})</s-text>
        </s-banner>
      )}
    </s-stack>
  );
}

export function ConnectionTest(props: { env: Env; info: EnvironmentInfo; label?: string; onDone: () => void }) {
  return (
    <CheckButton
      path={`/api/environments/${props.env}/test-connection`}
      label={props.label ?? 'Test connection'}
      busyText="Requesting a token from the courier…"
      text={{ okToast: `${ENV_LABEL[props.env]} connection works`, failToast: `${ENV_LABEL[props.env]} connection failed`, okHeading: 'Connection works', failHeading: 'Connection failed' }}
      last={props.info.lastConnectionTest}
      env={props.env}
      onDone={props.onDone}
    />
  );
}

export function WebhookUrl(props: { info: EnvironmentInfo; label?: string }) {
  return (
    <s-stack direction="inline" gap="small-200" alignItems="end">
      <s-box inlineSize="100%" maxInlineSize="640px">
        <s-text-field label={props.label ?? 'Webhook URL'} value={props.info.webhookUrl} readOnly details="Paste it into the courier portal as the status webhook endpoint." />
      </s-box>
      <s-button onClick={() => copy(props.info.webhookUrl)} accessibilityLabel={`Copy ${props.label ?? 'webhook URL'}`}>
        Copy
      </s-button>
    </s-stack>
  );
}

export function WebhookTest(props: { env: Env; info: EnvironmentInfo; label?: string; onDone: () => void }) {
  return (
    <CheckButton
      path={`/api/environments/${props.env}/test-webhook`}
      label={props.label ?? 'Send test webhook'}
      busyText="Asking the courier to send a signed test event and waiting for it…"
      text={{ okToast: 'Test webhook received and verified', failToast: 'Test webhook did not arrive verified', okHeading: 'Test webhook received and verified', failHeading: 'Test webhook failed' }}
      last={props.info.lastWebhookTest}
      env={props.env}
      onDone={props.onDone}
    />
  );
}
