// A SCHEDULED delivery's planned dispatch time (outside its pickup location's delivery window,
// or before the customer's delivery slot), and the slot the customer chose on the cart.
import { time, when } from '../format.ts';
import { t } from '../i18n.ts';

export function ScheduledAt(props: { at: string | null | undefined }) {
  if (!props.at) return null;
  return <s-text color="subdued" data-scheduled-at={props.at}>{t('scheduled.at', { when: when(props.at) })}</s-text>;
}

export function ChosenSlot(props: { slot: { start: string; end: string } | null | undefined }) {
  if (!props.slot) return null;
  return <s-badge tone="info" data-slot={props.slot.start}>{t('slot.chosen', { slot: `${when(props.slot.start)}–${time(props.slot.end)}` })}</s-badge>;
}
