// Settings › Fulfillment and tracking: when the Shopify order is marked
// fulfilled, whether the customer is told, the courier name and tracking link
// customers see, and how long the app's own tracking page keeps working. One form.
import { put } from '../api.ts';
import { t } from '../i18n.ts';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { Settings, SettingsPayload } from '../types.ts';

interface Form {
  trigger: Settings['fulfillment']['trigger'];
  notifyCustomer: boolean;
  courierName: string;
  trackingUrlTemplate: string;
  expiryDays: string;
}

function toForm(p: SettingsPayload): Form {
  const f = p.settings.fulfillment;
  return { trigger: f.trigger, notifyCustomer: f.notifyCustomer, courierName: f.courierName, trackingUrlTemplate: f.trackingUrlTemplate ?? '', expiryDays: String(p.settings.tracking.expiryDays) };
}

function submit(f: Form): Promise<SettingsPayload> {
  // A non-number goes as typed: the API names the field.
  const days = /^\d+$/.test(f.expiryDays.trim()) ? Number(f.expiryDays) : f.expiryDays;
  return put<SettingsPayload>('/api/settings', {
    settings: {
      fulfillment: { trigger: f.trigger, notifyCustomer: f.notifyCustomer, courierName: f.courierName, trackingUrlTemplate: f.trackingUrlTemplate.trim() || null },
      tracking: { expiryDays: days },
    },
  });
}

export function FulfillmentSettings(props: SectionProps) {
  const f = useSettingsForm({ source: props.payload, toForm, submit, onSaved: props.onSaved, savedToast: t('settings.saved'), shown: ['fulfillment', 'tracking'] });
  const { form } = f;
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return (
    <SectionForm id="fulfillment" form={f}>
      <s-section heading={t('settings.section.fulfillment')}>
        <s-stack gap="base">
          <s-select label={t('settings.trigger')} value={form.trigger} error={f.err('fulfillment.trigger')} onChange={(e) => f.set('trigger', text(e) as Form['trigger'])}>
            <s-option value="accepted">{t('settings.trigger.accepted')}</s-option>
            <s-option value="driver_assigned">{t('settings.trigger.driver_assigned')}</s-option>
            <s-option value="delivered">{t('settings.trigger.delivered')}</s-option>
          </s-select>
          <s-checkbox label={t('settings.notify')} checked={form.notifyCustomer} onChange={(e) => f.set('notifyCustomer', e.currentTarget.checked)} />
          <s-text-field label={t('settings.courierName')} value={form.courierName} error={f.err('fulfillment.courierName')} onInput={(e) => f.set('courierName', text(e))} />
          <s-url-field
            label={t('settings.trackingUrl')}
            value={form.trackingUrlTemplate}
            error={f.err('fulfillment.trackingUrlTemplate')}
            placeholder="https://track.example.com/{jobId}"
            details={t('settings.trackingUrl.details')}
            onInput={(e) => f.set('trackingUrlTemplate', text(e))}
          />
        </s-stack>
      </s-section>
      <s-section heading={t('settings.trackingPage')}>
        <s-stack gap="base">
          <s-text color="subdued">{t('settings.trackingPage.intro')}</s-text>
          <s-text-field label={t('settings.trackingPage.expiry')} value={form.expiryDays} error={f.err('tracking.expiryDays')} details={t('settings.trackingPage.expiry.details')} onInput={(e) => f.set('expiryDays', text(e))} />
        </s-stack>
      </s-section>
    </SectionForm>
  );
}
