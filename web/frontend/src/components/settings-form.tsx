// One settings section's form: its values, what changed since the last save,
// and App Bridge's contextual save bar (<ui-save-bar>, shown while there are
// unsaved changes; its Save is the section's one Save). Leaving the page while
// the bar shows asks first (router.ts, shopify.saveBar.leaveConfirmation).
// The API validates the whole patch and names each field it refuses.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, fieldError, toast } from '../api.ts';
import { t } from '../i18n.ts';
import type { SettingsPayload } from '../types.ts';

/** What every settings section gets from the Settings page (a section may also load what else it needs). */
export interface SectionProps {
  payload: SettingsPayload;
  /** The saved settings the API answered with: every section sees them. */
  onSaved: (p: SettingsPayload) => void;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface SettingsForm<F> {
  form: F;
  set<K extends keyof F>(key: K, value: F[K]): void;
  update(fn: (f: F) => F): void;
  err(path: string): string | undefined;
  errors: Record<string, string>;
  banner: string | null;
  saving: boolean;
  dirty: boolean;
  save(): Promise<void>;
  discard(): void;
}

/**
 * `source` is what the form starts from (the saved settings); `submit` sends the form and
 * answers the saved settings. Field errors the form does not show (`shown`) go to the banner.
 */
export function useSettingsForm<F>(opts: {
  source: SettingsPayload;
  toForm: (source: SettingsPayload) => F;
  submit: (form: F, source: SettingsPayload) => Promise<SettingsPayload>;
  onSaved?: (p: SettingsPayload) => void;
  savedToast: string;
  shown?: string[];
}): SettingsForm<F> {
  const [base, setBase] = useState(() => opts.toForm(opts.source));
  const [form, setForm] = useState(base);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const dirty = useMemo(() => !same(form, base), [form, base]);

  // New saved values (another section saved, a check ran): taken unless the merchant is editing.
  useEffect(() => {
    const next = opts.toForm(opts.source);
    if (same(next, base)) return;
    if (!dirty) setForm(next);
    setBase(next);
  }, [opts.source]);

  async function save() {
    setSaving(true);
    try {
      const saved = await opts.submit(form, opts.source);
      const next = opts.toForm(saved);
      setErrors({});
      setBanner(null);
      opts.onSaved?.(saved);
      setBase(next);
      setForm(next);
      toast(opts.savedToast);
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.errors).length) {
        setErrors(e.errors);
        const other = opts.shown ? Object.entries(e.errors).filter(([k]) => !opts.shown!.some((p) => k === p || k.startsWith(`${p}.`))) : [];
        setBanner([t('settings.notSaved.fields', { count: Object.keys(e.errors).length }), ...other.map(([k, v]) => `${k}: ${v}`)].join(' '));
      } else {
        setBanner((e as Error).message);
      }
      toast(t('settings.notSaved'), true);
    } finally {
      setSaving(false);
    }
  }

  return {
    form,
    set: (key, value) => setForm((f) => ({ ...f, [key]: value })),
    update: (fn) => setForm(fn),
    err: (path) => fieldError(errors, path),
    errors,
    banner,
    saving,
    dirty,
    save,
    discard: () => {
      setForm(base);
      setErrors({});
      setBanner(null);
    },
  };
}

/** App Bridge's save bar for one form: shown while `dirty`; Save and Discard are its buttons. */
export function SaveBar(props: { id: string; form: SettingsForm<unknown> }) {
  const { dirty, saving } = props.form;
  useEffect(() => {
    void (dirty ? shopify.saveBar?.show?.(props.id) : shopify.saveBar?.hide?.(props.id));
  }, [dirty]);
  useEffect(() => () => void shopify.saveBar?.hide?.(props.id), []);
  return (
    <ui-save-bar id={props.id} discardConfirmation>
      {/* type="button": inside the section's <form>, a plain button would also submit it (a second save, or a save on Discard). */}
      <button type="button" variant="primary" loading={saving ? '' : undefined} disabled={saving} onClick={() => void props.form.save()}>
        {t('common.save')}
      </button>
      <button type="button" disabled={saving} onClick={() => props.form.discard()}>
        {t('common.discard')}
      </button>
    </ui-save-bar>
  );
}

/** A section's form: the save bar, the not-saved banner, and its fields. Enter in a field saves, as in Shopify's admin. */
export function SectionForm(props: { id: string; form: SettingsForm<any>; children: ComponentChildren }) {
  return (
    <form
      id={`${props.id}-form`}
      onSubmit={(e) => {
        e.preventDefault();
        void props.form.save();
      }}
    >
      <SaveBar id={`${props.id}-save-bar`} form={props.form} />
      <s-stack gap="base">
        {props.form.banner && (
          <s-banner tone="critical" heading={t('settings.notSaved')}>
            {props.form.banner}
          </s-banner>
        )}
        {props.children}
      </s-stack>
    </form>
  );
}
