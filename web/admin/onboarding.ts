// The onboarding checklist, computed from real state on every read: stored
// credentials, the last connection test and test webhook made with the current
// credentials, the pickup store, the webhook secret, the settings.
//
// Steps 1–5 are about the environment new orders go to (the active one), so
// after switching to live they show the live set-up. Switching to live needs
// live credentials that passed a connection test, a live pickup store and the
// live webhook secret (liveReadiness, also enforced by the settings endpoint);
// the live test webhook can follow the switch.
import type { EnvironmentName, Settings } from '../settings/schema.ts';
import type { CourierAccess, EnvironmentView } from '../settings/store.ts';
import { connectionFingerprint, webhookFingerprint, type AdminState } from './state.ts';
import type { Checks as EnvironmentChecks, OnboardingStep } from './contract.ts';

/** The shapes the pages read (./contract.ts), so the server cannot drift from them. */
export type { Checks as EnvironmentChecks, OnboardingStep } from './contract.ts';
export type StepId = OnboardingStep['id'];

export function environmentChecks(view: EnvironmentView, access: CourierAccess, state: AdminState, env: EnvironmentName): EnvironmentChecks {
  const conn = state.connection[env];
  const connectionOk = !!conn?.ok && conn.fingerprint === connectionFingerprint(access);
  const test = state.webhookTest[env];
  const testOk = !!test?.ok && test.fingerprint === webhookFingerprint(access);
  // Set up without the admin (CLI) and never tested here: a verified courier event since the last rejection proves it too.
  const liveTraffic = !test && !!view.lastWebhookAt && view.webhookSecret.set && (!view.lastRejectionAt || view.lastWebhookAt > view.lastRejectionAt);
  return {
    credentialsSet: !!access.baseUrl && !!view.clientId && view.clientSecret.set,
    connectionOk,
    connectionTestedAt: connectionOk ? conn!.at : null,
    pickupStoreSet: !!view.pickupStoreId || Object.keys(view.locationStores).length > 0,
    webhookSecretSet: view.webhookSecret.set,
    webhookVerified: testOk || liveTraffic,
  };
}

/** Why the shop cannot switch to live yet, or null when it can: live needs the set-up test had. */
export function liveReadiness(live: EnvironmentChecks): string | null {
  if (!live.credentialsSet) return 'Enter the live courier credentials first';
  if (!live.connectionOk) return 'Test the live connection first: it must pass with the current live credentials';
  if (!live.pickupStoreSet) return 'Choose the live pickup store first';
  if (!live.webhookSecretSet) return 'Save the live webhook signing secret first';
  return null;
}

export function onboarding(settings: Settings, checks: Record<EnvironmentName, EnvironmentChecks>, webhookUrls: Record<EnvironmentName, string>) {
  const env = settings.activeEnvironment;
  const c = checks[env];
  const name = env === 'live' ? 'live' : 'test';
  const liveBlocker = liveReadiness(checks.live);
  const steps: OnboardingStep[] = [
    {
      id: 'credentials',
      title: `Enter your ${name} courier credentials`,
      done: c.credentialsSet,
      detail: c.credentialsSet ? 'Client id and secret are saved.' : 'The client id and secret of your courier app.',
    },
    {
      id: 'connection',
      title: 'Test the connection',
      done: c.connectionOk,
      detail: c.connectionOk ? 'The courier issued a token for the saved credentials.' : 'Requests a token with the saved credentials.',
    },
    {
      id: 'pickupStore',
      title: 'Choose the pickup store',
      done: c.pickupStoreSet,
      detail: c.pickupStoreSet ? 'Orders are collected from your pickup store.' : 'The courier store id your orders are collected from.',
    },
    {
      id: 'webhook',
      title: 'Connect status updates',
      done: c.webhookSecretSet,
      detail: c.webhookSecretSet
        ? `Webhook secret saved. The courier sends status updates to ${webhookUrls[env]}.`
        : `Paste this webhook URL into the courier portal, then save the signing secret it shows you: ${webhookUrls[env]}`,
    },
    {
      id: 'testWebhook',
      title: 'Send a test webhook',
      done: c.webhookVerified,
      detail: c.webhookVerified ? 'A signed test webhook reached the app and verified.' : 'Asks the courier to send one signed webhook to the URL above.',
    },
    {
      id: 'autoDispatch',
      title: 'Turn on auto-dispatch',
      done: settings.autoDispatch,
      detail: settings.autoDispatch ? 'Paid same-day orders are booked automatically.' : 'Books a courier for every eligible paid order.',
    },
    {
      id: 'live',
      title: 'Switch to live',
      done: env === 'live',
      detail: env === 'live' ? 'New orders go to the live courier.' : (liveBlocker ?? 'The live credentials passed the connection test: you can switch.'),
    },
  ];
  return { environment: env, complete: steps.every((s) => s.done), steps, canSwitchToLive: liveBlocker === null, liveBlocker };
}
