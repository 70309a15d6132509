// A SCHEDULED delivery's planned dispatch time (outside its pickup location's delivery window).
import { when } from '../format.ts';
import { t } from '../i18n.ts';

export function ScheduledAt(props: { at: string | null | undefined }) {
  if (!props.at) return null;
  return <s-text color="subdued" data-scheduled-at={props.at}>{t('scheduled.at', { when: when(props.at) })}</s-text>;
}
