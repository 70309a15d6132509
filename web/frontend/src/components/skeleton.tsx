// What a page shows while its code or data arrives: its heading and blocks of
// the height its content will take, so nothing moves when the content replaces
// them (Built for Shopify: CLS <= 0.1).
import { t } from '../i18n.ts';

export function SkeletonPage(props: { heading?: string; blocks?: number[] }) {
  return (
    <s-page heading={props.heading ?? ''}>
      <span class="visually-hidden" role="status">
        {t('common.loading')}
      </span>
      {(props.blocks ?? [160, 320]).map((h, i) => (
        <s-section key={i}>
          <div class="skeleton" style={{ height: `${h}px` }} aria-hidden="true" />
        </s-section>
      ))}
    </s-page>
  );
}
