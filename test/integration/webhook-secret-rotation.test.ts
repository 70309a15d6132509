// Courier webhook secret rotation: saving the same secret again keeps the
// previous one; a replaced secret is accepted for WEBHOOK_SECRET_OVERLAP_HOURS
// (default 24 h) and then no more; the admin shows how long it has left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';
import { updateEnvironment } from '../../web/settings/store.ts';
import { adminClient } from '../support/admin-client.ts';
import { connectCourierAccount, installShop, startScenario, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

const NEW_SECRET = 'whsec_rotated_9876543210fedcba';
const HOUR = 3_600_000;

async function postEvent(url: string, secret: string) {
  const id = `evt_${Math.random().toString(36).slice(2)}`;
  const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: 'dlv_unknown', status: 'accepted' } });
  const headers = signDeliveryWebhook({ secret, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
  return (await fetch(url, { method: 'POST', headers, body })).status;
}

describe('webhook secret rotation', () => {
  it('keeps the previous secret when the current one is saved again, and shows its remaining time', async () => {
    const domain = 'rotate-form.myshopify.com';
    await installShop(s, domain);
    const { endpointUrl } = await connectCourierAccount(s, domain);
    const api = adminClient(s.app.url, domain);

    expect((await api.put('/api/settings', { environments: { test: { webhookSecret: NEW_SECRET } } })).status).toBe(200);
    // The form sends the secret field again with the next save.
    const again = await api.put('/api/settings', { environments: { test: { webhookSecret: NEW_SECRET } } });
    expect(again.status).toBe(200);
    const prev = again.body.environments.test.previousWebhookSecret;
    expect(prev).not.toBeNull();
    expect(prev.last4).toBe(WEBHOOK_SECRET.slice(-4));
    expect(prev.remainingMinutes).toBeGreaterThan(23 * 60);
    expect(prev.remainingMinutes).toBeLessThanOrEqual(24 * 60);

    expect(await postEvent(endpointUrl, WEBHOOK_SECRET)).toBe(200); // the courier still signs with the old one
    expect(await postEvent(endpointUrl, NEW_SECRET)).toBe(200);
  });

  it('stops accepting the previous secret once its window has passed', async () => {
    const domain = 'rotate-expire.myshopify.com';
    await installShop(s, domain);
    const { endpointUrl } = await connectCourierAccount(s, domain);
    const { box } = s.app.server.services()!;
    // Rotated 25 hours ago with the default 24 h window.
    await updateEnvironment(s.app.db, box, domain, 'test', { webhookSecret: NEW_SECRET }, { now: Date.now() - 25 * HOUR });
    expect(await postEvent(endpointUrl, WEBHOOK_SECRET)).toBe(401);
    expect(await postEvent(endpointUrl, NEW_SECRET)).toBe(200);
    const view = (await adminClient(s.app.url, domain).get('/api/settings')).body.environments.test;
    expect(view.previousWebhookSecret).toBeNull();
  });

  it('uses the configured window', async () => {
    const domain = 'rotate-window.myshopify.com';
    await installShop(s, domain);
    const { box } = s.app.server.services()!;
    const v = await updateEnvironment(s.app.db, box, domain, 'test', { webhookSecret: NEW_SECRET }, { webhookSecretOverlapMs: 2 * HOUR });
    expect(v.previousWebhookSecret!.remainingMinutes).toBe(120);
    const cleared = await updateEnvironment(s.app.db, box, domain, 'test', { webhookSecret: null });
    expect(cleared.previousWebhookSecret).toBeNull();
    expect(cleared.webhookSecret.set).toBe(false);
  });
});
