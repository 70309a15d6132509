// Settings › Delivery windows: opening hours, same-day cut-off, closures and
// preparation time, as a default and per Shopify location (one form per
// location). The API validates and names the field (e.g. windows.default.hours.mon.close).
import { useState } from 'preact/hooks';
import { put } from '../api.ts';
import { t, timeZone } from '../i18n.ts';
import { useResource } from '../state.ts';
import { SectionForm, useSettingsForm, type SectionProps } from './settings-form.tsx';
import type { SettingsPayload, ShopLocation, Weekday, WindowConfig } from '../types.ts';

const DAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

interface Form {
  enabled: boolean;
  timeZone: string;
  hours: Record<Weekday, { open: string; close: string }>;
  cutoff: string;
  closures: string;
  prepMinutes: string;
}

function toForm(c: WindowConfig | null): Form {
  const hours = Object.fromEntries(DAYS.map((d) => [d, { open: c?.hours[d]?.open ?? '', close: c?.hours[d]?.close ?? '' }])) as Form['hours'];
  return {
    enabled: c !== null,
    timeZone: c?.timeZone ?? timeZone() ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    hours,
    cutoff: c?.cutoff ?? '',
    closures: (c?.closures ?? []).join(', '),
    prepMinutes: String(c?.prepMinutes ?? 0),
  };
}

/** Empty open and close: closed that day. */
function toConfig(f: Form): unknown {
  const hours = Object.fromEntries(DAYS.map((d) => {
    const h = f.hours[d];
    return [d, h.open.trim() || h.close.trim() ? { open: h.open.trim(), close: h.close.trim() } : null];
  }));
  const prep = f.prepMinutes.trim() === '' ? 0 : Number(f.prepMinutes);
  return {
    timeZone: f.timeZone.trim(), hours, cutoff: f.cutoff.trim() || null,
    closures: f.closures.split(/[\s,]+/).filter(Boolean), prepMinutes: Number.isNaN(prep) ? f.prepMinutes : prep,
  };
}

/** The window of one target: 'default' or a Shopify location id. */
function configOf(p: SettingsPayload, target: string): WindowConfig | null {
  const w = p.settings.windows;
  return target === 'default' ? w.default : (w.locations[target] ?? null);
}

function WindowsForm(props: SectionProps & { target: string }) {
  const { target } = props;
  const prefix = target === 'default' ? 'windows.default' : `windows.locations.${target}`;
  const f = useSettingsForm({
    source: props.payload,
    toForm: (p) => toForm(configOf(p, target)),
    submit(form) {
      const config = form.enabled ? toConfig(form) : null;
      const patch = target === 'default' ? { default: config } : { locations: { [target]: config } };
      return put<SettingsPayload>('/api/settings', { settings: { windows: patch } });
    },
    onSaved: props.onSaved,
    savedToast: t('windows.saved'),
    shown: ['windows'],
  });
  const { form } = f;
  const err = (path: string) => f.err(`${prefix}.${path}`);
  const set = (patch: Partial<Form>) => f.update((x) => ({ ...x, ...patch }));
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const hour = (d: Weekday, which: 'open' | 'close', value: string) => f.update((x) => ({ ...x, hours: { ...x.hours, [d]: { ...x.hours[d], [which]: value } } }));
  return (
    <SectionForm id="windows" form={f}>
      <s-checkbox
        label={target === 'default' ? t('windows.enabled') : t('windows.enabled.location')}
        name="windows.enabled"
        checked={form.enabled}
        onChange={(e) => set({ enabled: e.currentTarget.checked })}
      />
      {form.enabled && (
        <>
          <s-text-field label={t('windows.timeZone')} name="windows.timeZone" value={form.timeZone} error={err('timeZone')} details={t('windows.timeZone.details')} onInput={(e) => set({ timeZone: text(e) })} />
          <s-text-field label={t('windows.cutoff')} name="windows.cutoff" value={form.cutoff} error={err('cutoff')} placeholder="15:00" details={t('windows.cutoff.details')} onInput={(e) => set({ cutoff: text(e) })} />
          <s-text-field label={t('windows.prep')} name="windows.prepMinutes" value={form.prepMinutes} error={err('prepMinutes')} onInput={(e) => set({ prepMinutes: text(e) })} />
          <s-text-field label={t('windows.closures')} name="windows.closures" value={form.closures} error={err('closures')} placeholder="2026-12-25, 2026-12-26" onInput={(e) => set({ closures: text(e) })} />
          {err('hours') && !DAYS.some((d) => err(`hours.${d}`)) && <s-banner tone="critical">{err('hours')}</s-banner>}
          {DAYS.map((d) => (
            <s-stack key={d} direction="inline" gap="base">
              <s-text-field label={t('windows.opens', { day: d })} name={`windows.hours.${d}.open`} value={form.hours[d].open} error={err(`hours.${d}.open`)} placeholder={t('windows.closed')} onInput={(e) => hour(d, 'open', text(e))} />
              <s-text-field label={t('windows.closes', { day: d })} name={`windows.hours.${d}.close`} value={form.hours[d].close} error={err(`hours.${d}.close`)} placeholder={t('windows.closed')} onInput={(e) => hour(d, 'close', text(e))} />
            </s-stack>
          ))}
        </>
      )}
    </SectionForm>
  );
}

export function WindowsSettings(props: SectionProps) {
  const locations = useResource<{ locations: ShopLocation[] }>('/api/locations');
  const [target, setTarget] = useState('default');
  return (
    <s-section heading={t('settings.section.windows')}>
      <s-stack gap="base">
        <s-paragraph>{t('windows.intro')}</s-paragraph>
        <s-select
          label={t('windows.location')}
          name="windows.target"
          value={target}
          onChange={(e) => {
            const next = e.currentTarget.value;
            // Another location is another form: unsaved changes here are confirmed first.
            void (shopify.saveBar?.leaveConfirmation?.() ?? Promise.resolve()).then(() => setTarget(next));
          }}
        >
          <s-option value="default">{t('windows.location.default')}</s-option>
          {(locations.data?.locations ?? []).map((l) => (
            <s-option key={l.id} value={l.id}>
              {l.name}
            </s-option>
          ))}
        </s-select>
        <WindowsForm key={target} target={target} payload={props.payload} onSaved={props.onSaved} />
      </s-stack>
    </s-section>
  );
}
