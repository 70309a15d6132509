// Settings › Shopify Flow: the triggers and actions the app offers in Flow,
// which ones this shop's workflows use (Flow's lifecycle callback), and whether
// test deliveries send triggers too (docs/flow.md). One form, the save bar's Save.
import type { ComponentChildren } from 'preact';
import { put } from '../api.ts';
import { t } from '../i18n.ts';
import { useResource } from '../state.ts';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { FlowStatus, SettingsPayload } from '../types.ts';

interface Form {
  sendTestDeliveries: boolean;
}

const toForm = (p: SettingsPayload): Form => ({ sendTestDeliveries: p.settings.flow.sendTestDeliveries });
const submit = (f: Form) => put<SettingsPayload>('/api/settings', { settings: { flow: { sendTestDeliveries: f.sendTestDeliveries } } });

function Item(props: { name: string; description: string; children?: ComponentChildren }) {
  return (
    <s-stack direction="inline" gap="small-200">
      <s-text type="strong">{props.name}</s-text>
      {props.children}
      <s-text color="subdued">{props.description}</s-text>
    </s-stack>
  );
}

export function FlowSettings(props: SectionProps) {
  const status = useResource<FlowStatus>('/api/flow');
  const f = useSettingsForm({ source: props.payload, toForm, submit, onSaved: props.onSaved, savedToast: t('settings.saved'), shown: ['flow'] });
  const flow = status.data;
  return (
    <SectionForm id="flow" form={f}>
      <s-section heading={t('settings.section.flow')}>
        <s-stack gap="base">
          <s-paragraph>
            {t('flow.intro')} {flow && <s-link href={flow.flowUrl} target="_top">{t('flow.open')}</s-link>}
          </s-paragraph>
          <s-heading>{t('flow.triggers')}</s-heading>
          <s-stack gap="small-200">
            {flow?.triggers.map((x) => (
              <Item key={x.handle} name={x.name} description={x.description}>
                {x.inUse ? <s-badge tone="success">{t('flow.inUse')}</s-badge> : <s-badge>{t('flow.notUsed')}</s-badge>}
                {x.sent > 0 && <s-text color="subdued">{t('flow.sentThisWeek', { count: x.sent })}</s-text>}
                {x.failed > 0 && <s-badge tone="critical">{t('flow.failed', { count: x.failed, reason: x.lastFailure ?? '' })}</s-badge>}
              </Item>
            ))}
          </s-stack>
          <s-heading>{t('flow.actions')}</s-heading>
          <s-stack gap="small-200">
            {flow?.actions.map((a) => <Item key={a.handle} name={a.name} description={a.description} />)}
          </s-stack>
          <s-checkbox
            label={t('flow.sendTestDeliveries')}
            details={t('flow.sendTestDeliveries.details')}
            checked={f.form.sendTestDeliveries}
            error={f.err('flow.sendTestDeliveries')}
            onChange={(e: Event) => f.set('sendTestDeliveries', (e.currentTarget as HTMLInputElement).checked)}
          />
        </s-stack>
      </s-section>
    </SectionForm>
  );
}
