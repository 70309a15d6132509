// Shopify Flow on the settings page: the triggers and actions the app offers
// in Flow, which ones this shop's workflows use, and whether test deliveries
// send triggers too (docs/flow.md).
import { useState } from 'preact/hooks';
import { put, toast } from '../api.ts';
import { useResource } from '../state.ts';
import type { ComponentChildren } from 'preact';
import type { FlowStatus, SettingsPayload } from '../types.ts';

function Item(props: { name: string; description: string; children?: ComponentChildren }) {
  return (
    <s-stack direction="inline" gap="small-200">
      <s-text type="strong">{props.name}</s-text>
      {props.children}
      <s-text color="subdued">{props.description}</s-text>
    </s-stack>
  );
}

export function FlowSettings() {
  const s = useResource<FlowStatus>('/api/flow');
  const [saving, setSaving] = useState(false);
  if (!s.data) return null;
  const flow = s.data;

  async function setTestDeliveries(on: boolean) {
    setSaving(true);
    try {
      await put<SettingsPayload>('/api/settings', { settings: { flow: { sendTestDeliveries: on } } });
      await s.reload();
      toast(on ? 'Flow triggers will be sent for test deliveries too' : 'Flow triggers are sent for real deliveries only');
    } catch (e) {
      toast(`Flow setting not saved: ${(e as Error).message}`, true);
    } finally {
      setSaving(false);
    }
  }

  return (
    <s-section heading="Shopify Flow">
      <s-stack gap="base">
        <s-paragraph>
          Automate around your deliveries in <s-link href={flow.flowUrl} target="_top">Shopify Flow</s-link>: start a workflow when a delivery is booked,
          needs attention, fails or is delivered, and dispatch orders from your own rules.
        </s-paragraph>
        <s-heading>Triggers</s-heading>
        <s-stack gap="small-200">
          {flow.triggers.map((t) => (
            <Item key={t.handle} name={t.name} description={t.description}>
              {t.inUse ? <s-badge tone="success">Used by a workflow</s-badge> : <s-badge>Not used</s-badge>}
              {t.sent > 0 && <s-text color="subdued">{t.sent} sent this week</s-text>}
              {t.failed > 0 && <s-badge tone="critical">{`${t.failed} failed: ${t.lastFailure ?? ''}`}</s-badge>}
            </Item>
          ))}
        </s-stack>
        <s-heading>Actions</s-heading>
        <s-stack gap="small-200">
          {flow.actions.map((a) => <Item key={a.handle} name={a.name} description={a.description} />)}
        </s-stack>
        <s-checkbox
          label="Send triggers for test deliveries too"
          details="Off: only deliveries on the courier's live environment start workflows."
          checked={flow.sendTestDeliveries}
          disabled={saving}
          onChange={(e: Event) => void setTestDeliveries((e.currentTarget as HTMLInputElement).checked)}
        />
      </s-stack>
    </s-section>
  );
}
