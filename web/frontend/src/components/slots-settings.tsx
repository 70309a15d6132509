// Settings › Delivery slots: the slots the cart block offers (docs/delivery-slots.md). The slots
// come from each pickup location's delivery window (Settings › Delivery windows). One form.
import { put } from '../api.ts';
import { t } from '../i18n.ts';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { Settings, SettingsPayload } from '../types.ts';

type Slots = Settings['slots'];
type Form = Record<'slotMinutes' | 'daysAhead' | 'capacity' | 'leadMinutes', string> & { enabled: boolean; sameDayAsap: boolean; invalidSlot: Slots['invalidSlot'] };

function toForm(p: SettingsPayload): Form {
  const s = p.settings.slots;
  return {
    enabled: s.enabled, sameDayAsap: s.sameDayAsap, invalidSlot: s.invalidSlot, slotMinutes: String(s.slotMinutes), daysAhead: String(s.daysAhead),
    capacity: s.capacity === null ? '' : String(s.capacity), leadMinutes: String(s.leadMinutes),
  };
}

// Numbers as typed: the server's validation names a field that is not a whole number.
const num = (v: string) => (v.trim() === '' || Number.isNaN(Number(v)) ? v : Number(v));

function toPatch(f: Form): Record<string, unknown> {
  return {
    enabled: f.enabled, sameDayAsap: f.sameDayAsap, invalidSlot: f.invalidSlot, slotMinutes: num(f.slotMinutes), daysAhead: num(f.daysAhead),
    capacity: f.capacity.trim() === '' ? null : num(f.capacity), leadMinutes: num(f.leadMinutes),
  };
}

export function SlotsSettings(props: SectionProps) {
  const f = useSettingsForm({
    source: props.payload,
    toForm,
    submit: (form) => put<SettingsPayload>('/api/settings', { settings: { slots: toPatch(form) } }),
    onSaved: props.onSaved,
    savedToast: t('slots.saved'),
    shown: ['slots'],
  });
  const { form } = f;
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const field = (k: 'slotMinutes' | 'daysAhead' | 'capacity' | 'leadMinutes') => (
    <s-text-field label={t(`slots.${k}`)} value={form[k]} error={f.err(`slots.${k}`)} details={t(`slots.${k}.details`)} onInput={(e) => f.set(k, text(e))} />
  );
  return (
    <SectionForm id="slots" form={f}>
      <s-section heading={t('settings.section.slots')}>
        <s-stack gap="base">
          <s-paragraph>{t('slots.intro')}</s-paragraph>
          <s-checkbox label={t('slots.enabled')} checked={form.enabled} onChange={(e) => f.set('enabled', e.currentTarget.checked)} details={t('slots.enabled.details')} />
          {field('slotMinutes')}
          {field('daysAhead')}
          {field('capacity')}
          {field('leadMinutes')}
          <s-checkbox label={t('slots.sameDayAsap')} checked={form.sameDayAsap} onChange={(e) => f.set('sameDayAsap', e.currentTarget.checked)} details={t('slots.sameDayAsap.details')} />
          <s-select label={t('slots.invalidSlot')} value={form.invalidSlot} error={f.err('slots.invalidSlot')} details={t('slots.invalidSlot.details')} onChange={(e) => f.set('invalidSlot', text(e) as Slots['invalidSlot'])}>
            <s-option value="attention">{t('slots.invalidSlot.attention')}</s-option>
            <s-option value="asap">{t('slots.invalidSlot.asap')}</s-option>
          </s-select>
        </s-stack>
      </s-section>
    </SectionForm>
  );
}
