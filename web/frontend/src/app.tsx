import { match, navigate, path } from './router.ts';
import { Home } from './pages/home.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { DeliveriesPage } from './pages/deliveries.tsx';
import { DeliveryPage } from './pages/delivery.tsx';
import { UnmatchedPage } from './pages/unmatched.tsx';

export function App() {
  const route = match(path.value);
  return (
    <>
      <s-app-nav>
        <s-link href="/deliveries">Deliveries</s-link>
        <s-link href="/settings">Settings</s-link>
      </s-app-nav>
      {route.name === 'home' && <Home />}
      {route.name === 'settings' && <SettingsPage />}
      {route.name === 'deliveries' && <DeliveriesPage />}
      {route.name === 'delivery' && <DeliveryPage key={route.id} id={route.id} />}
      {route.name === 'unmatched' && <UnmatchedPage />}
      {route.name === 'missing' && (
        <s-page heading="Page not found">
          <s-section>
            <s-paragraph>This page does not exist.</s-paragraph>
            <s-button onClick={() => navigate('/')}>Go to Home</s-button>
          </s-section>
        </s-page>
      )}
    </>
  );
}
