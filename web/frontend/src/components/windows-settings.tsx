// Delivery windows on the Settings page: opening hours, same-day cut-off, closures and
// preparation time, as a default and per Shopify location. Its own Save; the API
// validates and names the field (e.g. windows.default.hours.mon.close).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldError, put, toast } from '../api.ts';
import { useResource } from '../state.ts';
import type { SettingsPayload, ShopLocation, Weekday, WindowConfig } from '../types.ts';

const DAYS: Array<[Weekday, string]> = [['mon', 'Monday'], ['tue', 'Tuesday'], ['wed', 'Wednesday'], ['thu', 'Thursday'], ['fri', 'Friday'], ['sat', 'Saturday'], ['sun', 'Sunday']];

interface Form {
  enabled: boolean;
  timeZone: string;
  hours: Record<Weekday, { open: string; close: string }>;
  cutoff: string;
  closures: string;
  prepMinutes: string;
}

function toForm(c: WindowConfig | null): Form {
  const hours = Object.fromEntries(DAYS.map(([d]) => [d, { open: c?.hours[d]?.open ?? '', close: c?.hours[d]?.close ?? '' }])) as Form['hours'];
  return {
    enabled: c !== null,
    timeZone: c?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    hours,
    cutoff: c?.cutoff ?? '',
    closures: (c?.closures ?? []).join(', '),
    prepMinutes: String(c?.prepMinutes ?? 0),
  };
}

/** Empty open and close: closed that day. */
function toConfig(f: Form): unknown {
  const hours = Object.fromEntries(DAYS.map(([d]) => {
    const h = f.hours[d];
    return [d, h.open.trim() || h.close.trim() ? { open: h.open.trim(), close: h.close.trim() } : null];
  }));
  const prep = f.prepMinutes.trim() === '' ? 0 : Number(f.prepMinutes);
  return {
    timeZone: f.timeZone.trim(), hours, cutoff: f.cutoff.trim() || null,
    closures: f.closures.split(/[\s,]+/).filter(Boolean), prepMinutes: Number.isNaN(prep) ? f.prepMinutes : prep,
  };
}

export function WindowsSettings() {
  const s = useResource<SettingsPayload>('/api/settings');
  const locations = useResource<{ locations: ShopLocation[] }>('/api/locations');
  const [target, setTarget] = useState('default');
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const windows = s.data?.settings.windows;
  const prefix = target === 'default' ? 'windows.default' : `windows.locations.${target}`;

  useEffect(() => {
    if (!windows) return;
    setForm(toForm(target === 'default' ? windows.default : (windows.locations[target] ?? null)));
    setErrors({});
  }, [windows, target]);

  async function save() {
    if (!form) return;
    const config = form.enabled ? toConfig(form) : null;
    const patch = target === 'default' ? { default: config } : { locations: { [target]: config } };
    setSaving(true);
    try {
      await put<SettingsPayload>('/api/settings', { settings: { windows: patch } });
      setErrors({});
      toast('Delivery windows saved');
      await s.reload();
    } catch (e) {
      if (e instanceof ApiError) {
        setErrors(e.errors);
        if (!Object.keys(e.errors).length) toast(e.message, true);
      } else toast(String(e), true);
    } finally {
      setSaving(false);
    }
  }

  if (!form) return null;
  const err = (path: string) => fieldError(errors, `${prefix}.${path}`);
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return (
    <s-section heading="Delivery windows">
      <s-stack gap="base">
        <s-paragraph>
          Orders paid outside a pickup location’s window are scheduled, shown as Scheduled with the time, and dispatched at the next opening plus the
          preparation time. Dispatch now sends one at once.
        </s-paragraph>
        <s-select label="Location" name="windows.target" value={target} onChange={(e) => setTarget(text(e))}>
          <s-option value="default">Default (every location without its own window)</s-option>
          {(locations.data?.locations ?? []).map((l) => (
            <s-option key={l.id} value={l.id}>
              {l.name}
            </s-option>
          ))}
        </s-select>
        <s-checkbox
          label={target === 'default' ? 'Use a delivery window' : 'Give this location its own window'}
          name="windows.enabled"
          checked={form.enabled}
          onChange={(e) => set({ enabled: (e.currentTarget as unknown as HTMLInputElement).checked })}
        />
        {form.enabled && (
          <>
            <s-text-field label="Time zone" name="windows.timeZone" value={form.timeZone} error={err('timeZone')} details="IANA name, e.g. Africa/Johannesburg" onInput={(e) => set({ timeZone: text(e) })} />
            <s-text-field label="Same-day cut-off" name="windows.cutoff" value={form.cutoff} error={err('cutoff')} placeholder="15:00" details="Orders paid later wait for the next opening. Empty: the closing time." onInput={(e) => set({ cutoff: text(e) })} />
            <s-text-field label="Preparation time (minutes)" name="windows.prepMinutes" value={form.prepMinutes} error={err('prepMinutes')} onInput={(e) => set({ prepMinutes: text(e) })} />
            <s-text-field label="Closures" name="windows.closures" value={form.closures} error={err('closures')} placeholder="2026-12-25, 2026-12-26" onInput={(e) => set({ closures: text(e) })} />
            {err('hours') && !DAYS.some(([d]) => err(`hours.${d}`)) && <s-banner tone="critical">{err('hours')}</s-banner>}
            {DAYS.map(([d, label]) => (
              <s-stack key={d} direction="inline" gap="base">
                <s-text-field label={`${label} opens`} name={`windows.hours.${d}.open`} value={form.hours[d].open} error={err(`hours.${d}.open`)} placeholder="closed" onInput={(e) => set({ hours: { ...form.hours, [d]: { ...form.hours[d], open: text(e) } } })} />
                <s-text-field label={`${label} closes`} name={`windows.hours.${d}.close`} value={form.hours[d].close} error={err(`hours.${d}.close`)} placeholder="closed" onInput={(e) => set({ hours: { ...form.hours, [d]: { ...form.hours[d], close: text(e) } } })} />
              </s-stack>
            ))}
          </>
        )}
        <s-stack direction="inline">
          <s-button variant="primary" loading={saving} onClick={save}>
            Save delivery windows
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
