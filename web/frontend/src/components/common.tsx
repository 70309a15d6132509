import type { ComponentChildren } from 'preact';
import { prettyJson, STATUS_TONES } from '../format.ts';
import { t, tOr } from '../i18n.ts';

/** A delivery status in the merchant's language; the server's label for a status this page does not know. */
export function statusLabel(status: string, serverLabel?: string): string {
  return tOr(`status.${status}`, serverLabel ?? status);
}

export function StatusBadge(props: { status: string; label?: string }) {
  return <s-badge tone={STATUS_TONES[props.status] ?? 'neutral'}>{statusLabel(props.status, props.label)}</s-badge>;
}

export function DoneBadge(props: { done: boolean }) {
  return props.done ? <s-badge tone="success">{t('common.done')}</s-badge> : <s-badge tone="neutral">{t('common.toDo')}</s-badge>;
}

export function Loading(props: { label?: string }) {
  const label = props.label ?? t('common.loading');
  return (
    <s-stack direction="inline" gap="small-200" alignItems="center">
      <s-spinner accessibilityLabel={label} size="base" />
      <s-text color="subdued">{label}</s-text>
    </s-stack>
  );
}

export function ErrorBanner(props: { error: string | null; heading?: string; children?: ComponentChildren }) {
  if (!props.error) return null;
  return (
    <s-banner tone="critical" heading={props.heading ?? t('error.generic')}>
      {props.error}
      {props.children}
    </s-banner>
  );
}

/** Copies to the clipboard, with a toast. */
export async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    shopify.toast.show(t('common.copied'));
  } catch {
    shopify.toast.show(t('common.copyFailed'), { isError: true });
  }
}

export function Field(props: { label: string; children: ComponentChildren }) {
  return (
    <s-stack gap="small-400">
      <s-text color="subdued">{props.label}</s-text>
      <span style={{ overflowWrap: 'anywhere' }}>{props.children}</span>
    </s-stack>
  );
}

/**
 * Exact JSON exchanged with a system, folded: a native <details> (keyboard: Tab to the
 * summary, Enter opens it), its scrolling box focusable so it can be scrolled by keyboard.
 */
export function RawJson(props: { label: string; text: string | null; empty: string; open?: boolean }) {
  if (!props.text) return <s-paragraph color="subdued">{props.empty}</s-paragraph>;
  return (
    <details class="raw" open={props.open}>
      <summary>{props.label}</summary>
      <pre class="code" tabIndex={0} role="region" aria-label={props.label}>
        {prettyJson(props.text)}
      </pre>
    </details>
  );
}
