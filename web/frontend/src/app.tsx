// The pages, each its own chunk (lazy.tsx), behind App Bridge's navigation.
import { match, navigate, path } from './router.ts';
import { t } from './i18n.ts';
import { Lazy, type Loader } from './lazy.tsx';
import { SkeletonPage } from './components/skeleton.tsx';

const PAGES = {
  home: () => import('./pages/home.tsx').then((m) => m.Home),
  settings: () => import('./pages/settings.tsx').then((m) => m.SettingsPage),
  deliveries: () => import('./pages/deliveries.tsx').then((m) => m.DeliveriesPage),
  delivery: () => import('./pages/delivery.tsx').then((m) => m.DeliveryPage),
  unmatched: () => import('./pages/unmatched.tsx').then((m) => m.UnmatchedPage),
} satisfies Record<string, Loader<any>>;

function Page<P extends object>(props: { load: Loader<P>; props: P; heading: string; blocks?: number[] }) {
  return <Lazy load={props.load} props={props.props} fallback={<SkeletonPage heading={props.heading} blocks={props.blocks} />} />;
}

export function App() {
  const route = match(path.value);
  return (
    <>
      <s-app-nav>
        <s-link href="/deliveries">{t('nav.deliveries')}</s-link>
        <s-link href="/settings">{t('nav.settings')}</s-link>
      </s-app-nav>
      {route.name === 'home' && <Page load={PAGES.home} props={{}} heading={t('home.heading')} blocks={[140, 420]} />}
      {route.name === 'settings' && <Page load={PAGES.settings as Loader<{ section: string | null }>} props={{ section: route.section }} heading={t('settings.heading')} />}
      {route.name === 'deliveries' && <Page load={PAGES.deliveries} props={{}} heading={t('deliveries.heading')} blocks={[640]} />}
      {route.name === 'delivery' && <Page key={route.id} load={PAGES.delivery as Loader<{ id: string }>} props={{ id: route.id }} heading={t('delivery.heading')} />}
      {route.name === 'unmatched' && <Page load={PAGES.unmatched} props={{}} heading={t('unmatched.heading')} />}
      {route.name === 'missing' && (
        <s-page heading={t('missing.heading')}>
          <s-section>
            <s-paragraph>{t('missing.body')}</s-paragraph>
            <s-button onClick={() => navigate('/')}>{t('missing.home')}</s-button>
          </s-section>
        </s-page>
      )}
    </>
  );
}

