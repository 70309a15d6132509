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
import type { CourierAccess } from '../delivery/types.ts';
import type { EnvironmentView } from '../settings/store.ts';
import { connectionFingerprint, webhookFingerprint, type AdminState } from './state.ts';
import type { Checks as EnvironmentChecks, Onboarding, OnboardingStep } from './contract.ts';
import { english } from './messages.ts';

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

export type LiveBlocker = NonNullable<Onboarding['liveBlockerCode']>;

/** What the shop must do before it can switch to live, or null when it can: live needs the set-up test had. */
export function liveBlockerCode(live: EnvironmentChecks): LiveBlocker | null {
  if (!live.credentialsSet) return 'credentials';
  if (!live.connectionOk) return 'connection';
  if (!live.pickupStoreSet) return 'pickupStore';
  if (!live.webhookSecretSet) return 'webhookSecret';
  return null;
}

/** Why the shop cannot switch to live yet, in words, or null when it can. */
export function liveReadiness(live: EnvironmentChecks): string | null {
  const code = liveBlockerCode(live);
  return code ? english(`onboarding.liveBlocker.${code}`) : null;
}

const STEP_DONE: Record<StepId, (c: EnvironmentChecks, s: Settings) => boolean> = {
  credentials: (c) => c.credentialsSet,
  connection: (c) => c.connectionOk,
  pickupStore: (c) => c.pickupStoreSet,
  webhook: (c) => c.webhookSecretSet,
  testWebhook: (c) => c.webhookVerified,
  autoDispatch: (_c, s) => s.autoDispatch,
  live: (_c, s) => s.activeEnvironment === 'live',
};

/** The checklist in English; its words are the catalogue's onboarding.<step>.* (the pages show them translated). */
export function onboarding(settings: Settings, checks: Record<EnvironmentName, EnvironmentChecks>, webhookUrls: Record<EnvironmentName, string>): Onboarding {
  const env = settings.activeEnvironment;
  const c = checks[env];
  const blocker = liveBlockerCode(checks.live);
  const steps: OnboardingStep[] = (Object.keys(STEP_DONE) as StepId[]).map((id) => {
    const done = STEP_DONE[id](c, settings);
    const detail = id === 'live' && !done && blocker ? english(`onboarding.liveBlocker.${blocker}`) : english(`onboarding.${id}.${done ? 'done' : 'todo'}`, { url: webhookUrls[env] });
    return { id, title: english(`onboarding.${id}.title`, { env }), done, detail };
  });
  return { environment: env, complete: steps.every((s) => s.done), steps, canSwitchToLive: blocker === null, liveBlocker: blocker && english(`onboarding.liveBlocker.${blocker}`), liveBlockerCode: blocker };
}
