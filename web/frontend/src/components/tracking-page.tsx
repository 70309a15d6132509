// The customer tracking page's setting: how many days after the delivery its
// link keeps working. Saved on its own (a settings patch of this one field).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldError, put, toast } from '../api.ts';
import { useResource } from '../state.ts';
import type { SettingsPayload } from '../types.ts';

export function TrackingPageSettings() {
  const s = useResource<SettingsPayload>('/api/settings');
  const [days, setDays] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (s.data && days === null) setDays(String(s.data.settings.tracking.expiryDays));
  }, [s.data]);

  async function save() {
    if (days === null) return;
    setSaving(true);
    try {
      // A non-number goes as typed: the server names the field in its 400.
      const saved = await put<SettingsPayload>('/api/settings', { settings: { tracking: { expiryDays: /^\d+$/.test(days.trim()) ? Number(days) : days } } });
      setDays(String(saved.settings.tracking.expiryDays));
      setError(undefined);
      toast('Tracking page setting saved');
    } catch (e) {
      setError(e instanceof ApiError ? (fieldError(e.errors, 'tracking.expiryDays') ?? e.message) : String(e));
      toast('Tracking page setting not saved', true);
    } finally {
      setSaving(false);
    }
  }

  if (days === null) return null;
  return (
    <s-section heading="Customer tracking page">
      <s-stack gap="base">
        <s-text color="subdued">Without a tracking URL template, Shopify's shipping emails link to the app's own tracking page for each delivery.</s-text>
        <s-text-field label="Link expires this many days after the delivery" value={days} error={error} details="1 to 90 days." onInput={(e: Event) => setDays((e.currentTarget as HTMLInputElement).value)} />
        <s-button loading={saving} onClick={() => void save()}>Save tracking page setting</s-button>
      </s-stack>
    </s-section>
  );
}
