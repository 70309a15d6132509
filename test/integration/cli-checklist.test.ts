// The set-up checklist counts checks run from the operator CLI as it counts the
// admin's: `npm run cli -- test-connection` and `test-webhook` go through the
// admin's own services (web/admin/services/settings.ts), which record them.
// The CLI is a child process on the app's database; SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../support/admin-client.ts';
import { cliOf } from '../support/cli.ts';
import { connectCourierAccount, installShop, startScenario, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

const stepsDone = async (shop: string) => {
  const r = await adminClient(s.app.url, shop).get('/api/onboarding');
  expect(r.status).toBe(200);
  return Object.fromEntries((r.body.steps as Array<{ id: string; done: boolean }>).map((x) => [x.id, x.done]));
};

describe('the set-up checklist after set-up by CLI', () => {
  it('counts a connection test and a test webhook run from the CLI', async () => {
    const shop = 'cli-checklist.myshopify.com';
    await installShop(s, shop);
    await connectCourierAccount(s, shop);
    expect(await stepsDone(shop)).toMatchObject({ credentials: true, connection: false, testWebhook: false });

    const cli = cliOf(s);
    const conn = await cli('test-connection', shop);
    expect(conn.stderr).toBe('');
    expect(conn.stdout).toMatch(/^OK: the test courier issued a token/);
    expect(await stepsDone(shop)).toMatchObject({ connection: true, testWebhook: false });

    const hook = await cli('test-webhook', shop, '--json');
    expect(hook.status).toBe(0);
    expect(JSON.parse(hook.stdout)).toMatchObject({ environment: 'test', ok: true, sent: true, received: true, verified: true });
    expect(await stepsDone(shop)).toMatchObject({ connection: true, testWebhook: true });
  }, 120_000); // each CLI run is a process start: slow on a busy machine

  it('records a failed check too, so an earlier pass stops counting', async () => {
    const shop = 'cli-checklist-bad.myshopify.com';
    await installShop(s, shop);
    await connectCourierAccount(s, shop);
    const cli = cliOf(s);
    expect((await cli('test-connection', shop)).status).toBe(0);
    expect((await stepsDone(shop)).connection).toBe(true);

    // New credentials the courier refuses: the CLI says why and exits non-zero; the checklist no longer counts the step.
    expect((await cli('configure', shop, '--client-id', 'nobody-knows-me')).status).toBe(0);
    const bad = await cli('test-connection', shop, '--json');
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false });
    const plain = await cli('test-connection', shop);
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).not.toBe('');
    expect((await stepsDone(shop)).connection).toBe(false);
    const stored = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shop: { domain: shop }, environment: 'test' } });
    expect(JSON.parse(stored.connectionCheck!)).toMatchObject({ ok: false });
  }, 120_000); // each CLI run is a process start: slow on a busy machine
});
