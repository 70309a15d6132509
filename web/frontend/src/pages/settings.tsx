// Settings: one page per section (/settings/<id>), listed at the side so a
// merchant finds each; each section is one form with App Bridge's save bar
// (components/settings-form.tsx) and loads as its own chunk.
//
// To add a section: one line in SECTIONS below (its id, the message key of its
// title in web/i18n/messages/admin/*.json, and its component). The component
// gets SectionProps (the saved settings and onSaved) and may ignore them.
import type { ComponentType } from 'preact';
import { ErrorBanner } from '../components/common.tsx';
import { SkeletonPage } from '../components/skeleton.tsx';
import type { SectionProps } from '../components/settings-form.tsx';
import { t } from '../i18n.ts';
import { Lazy, type Loader } from '../lazy.tsx';
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { SettingsPayload } from '../types.ts';

interface Section {
  id: string;
  /** Message key of the section's title. */
  title: string;
  load: Loader<SectionProps>;
}

const section = (id: string, title: string, load: () => Promise<ComponentType<any>>): Section => ({ id, title, load });

export const SECTIONS: Section[] = [
  section('courier', 'settings.section.courier', () => import('../components/settings-courier.tsx').then((m) => m.CourierSettings)),
  section('dispatch', 'settings.section.dispatch', () => import('../components/settings-dispatch.tsx').then((m) => m.DispatchSettings)),
  section('fulfillment', 'settings.section.fulfillment', () => import('../components/settings-fulfillment.tsx').then((m) => m.FulfillmentSettings)),
  section('windows', 'settings.section.windows', () => import('../components/windows-settings.tsx').then((m) => m.WindowsSettings)),
  section('slots', 'settings.section.slots', () => import('../components/slots-settings.tsx').then((m) => m.SlotsSettings)),
  section('rates', 'settings.section.rates', () => import('../components/rates-settings.tsx').then((m) => m.RatesSettings)),
  section('privacy', 'settings.section.privacy', () => import('../components/data-requests.tsx').then((m) => m.DataRequests)),
  section('flow', 'settings.section.flow', () => import('../components/flow-settings.tsx').then((m) => m.FlowSettings)),
];

function SectionNav(props: { active: string }) {
  return (
    <s-section padding="none" accessibilityLabel={t('settings.sections')}>
      <nav aria-label={t('settings.sections')} class="section-nav">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <s-link href={`/settings/${s.id}`} onClick={linkTo(`/settings/${s.id}`)} accessibilityLabel={s.id === props.active ? t('settings.current', { section: t(s.title) }) : undefined}>
                {s.id === props.active ? <strong>{t(s.title)}</strong> : t(s.title)}
              </s-link>
            </li>
          ))}
        </ul>
      </nav>
    </s-section>
  );
}

export function SettingsPage(props: { section: string | null }) {
  const s = useResource<SettingsPayload>('/api/settings');
  const active = SECTIONS.find((x) => x.id === (props.section ?? SECTIONS[0]!.id));
  const heading = active ? t(active.title) : t('settings.heading');
  if (!s.data && !s.error) return <SkeletonPage heading={t('settings.heading')} />;
  return (
    <s-page heading={t('settings.heading')}>
      <ErrorBanner error={s.error} heading={t('settings.error')} />
      <s-grid gridTemplateColumns="minmax(160px, 220px) minmax(0, 1fr)" gap="base" alignItems="start">
        <SectionNav active={active?.id ?? ''} />
        <div>
          {!active && (
            <s-section heading={t('missing.heading')}>
              <s-paragraph>{t('settings.unknown')}</s-paragraph>
            </s-section>
          )}
          {active && s.data && (
            <Lazy
              key={active.id}
              load={active.load}
              props={{
                payload: s.data,
                onSaved: (p: SettingsPayload) => s.set(p),
              }}
              fallback={
                <s-section heading={heading}>
                  <div class="skeleton" style={{ height: '480px' }} aria-hidden="true" />
                </s-section>
              }
            />
          )}
        </div>
      </s-grid>
    </s-page>
  );
}
