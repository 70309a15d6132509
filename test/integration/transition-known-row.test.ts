// transitionLatest with a `known` row (issue 18: the booking's update skips a read):
// a known row that is still current is written without reading; a stale one matches
// nothing, and the fresh row is read and decided on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transitionLatest } from '../../web/transitions/transition.ts';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

async function skipped(shop: string) {
  const sim = await installShop(s, shop);
  const { orderId } = await placeOrder(s, sim, { shipping_lines: [{ title: 'Standard', code: 'standard' }] });
  return waitForStatus(s.app, shop, orderId, 'SKIPPED');
}

// Decides on reasonCode, so it puts reasonCode into `where`, as recordCreated does.
const plan = (seen: string[]) => (d: { reasonCode: string | null }) => {
  seen.push(d.reasonCode ?? 'null');
  return { event: 'shopify_cancelled' as const, data: { reason: `was ${d.reasonCode}` }, where: { reasonCode: d.reasonCode }, timeline: { kind: 'shopify_cancelled' } };
};

describe('transitionLatest with the row the job last wrote', () => {
  it('a current known row is used as it is', async () => {
    const d = await skipped('known-current.myshopify.com');
    const seen: string[] = [];
    const r = await s.app.db.$transaction((tx) => transitionLatest(tx, null, d.id, plan(seen), { known: d }));
    expect(r).toMatchObject({ applied: true, to: 'SKIPPED' });
    expect(r.row).toBe(d);
    expect(seen).toEqual(['shipping_method']);
  });

  it('a stale known row writes nothing from it: the fresh row is read and decided on', async () => {
    const d = await skipped('known-stale.myshopify.com');
    // Changed after the job's last write, without a status change.
    await s.app.db.delivery.update({ where: { id: d.id }, data: { reasonCode: 'changed_meanwhile' } });
    const seen: string[] = [];
    const r = await s.app.db.$transaction((tx) => transitionLatest(tx, null, d.id, plan(seen), { known: d }));
    expect(r).toMatchObject({ applied: true, to: 'SKIPPED' });
    expect(seen).toEqual(['shipping_method', 'changed_meanwhile']);
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).toMatchObject({ reasonCode: 'changed_meanwhile', reason: 'was changed_meanwhile' });
  });

  it('a plan without a `where` never trusts the known row', async () => {
    const d = await skipped('known-nowhere.myshopify.com');
    await s.app.db.delivery.update({ where: { id: d.id }, data: { reasonCode: 'changed_meanwhile' } });
    const seen: string[] = [];
    const r = await s.app.db.$transaction((tx) => transitionLatest(tx, null, d.id, (row) => {
      seen.push(row.reasonCode ?? 'null');
      return { event: 'shopify_cancelled', data: { reason: `was ${row.reasonCode}` }, timeline: { kind: 'shopify_cancelled' } };
    }, { known: d }));
    expect(r).toMatchObject({ applied: true });
    expect(seen).toEqual(['shipping_method', 'changed_meanwhile']);
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).toMatchObject({ reason: 'was changed_meanwhile' });
  });
});
