import type { ComponentChildren } from 'preact';
import { STATUS_TONES } from '../format.ts';

export function StatusBadge(props: { status: string; label: string }) {
  return <s-badge tone={STATUS_TONES[props.status] ?? 'neutral'}>{props.label}</s-badge>;
}

export function DoneBadge(props: { done: boolean }) {
  return props.done ? <s-badge tone="success">Done</s-badge> : <s-badge tone="neutral">To do</s-badge>;
}

export function Loading(props: { label?: string }) {
  return (
    <s-stack direction="inline" gap="small-200" alignItems="center">
      <s-spinner accessibilityLabel={props.label ?? 'Loading'} size="base" />
      <s-text color="subdued">{props.label ?? 'Loading…'}</s-text>
    </s-stack>
  );
}

export function ErrorBanner(props: { error: string | null; heading?: string; children?: ComponentChildren }) {
  if (!props.error) return null;
  return (
    <s-banner tone="critical" heading={props.heading ?? 'Something went wrong'}>
      {props.error}
      {props.children}
    </s-banner>
  );
}

/** Copies to the clipboard, with a toast. */
export async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    shopify.toast.show('Copied');
  } catch {
    shopify.toast.show('Could not copy: select the text and copy it', { isError: true });
  }
}

export function Field(props: { label: string; children: ComponentChildren }) {
  return (
    <s-stack gap="small-200">
      <s-text color="subdued">{props.label}</s-text>
      <span style={{ overflowWrap: 'anywhere' }}>{props.children}</span>
    </s-stack>
  );
}
