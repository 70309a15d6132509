// A shop with its own courier account and one booked order, and signed courier
// status webhooks posted to its endpoint as the courier would send them.
import { expect } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/index.ts';
import { connectCourierAccount, installShop, placeOrder, waitForStatus, WEBHOOK_SECRET, type Scenario } from './scenario.ts';

export async function bookedWithAccount(s: Scenario, shop: string) {
  const sim = await installShop(s, shop);
  const account = await connectCourierAccount(s, shop);
  const { orderId } = await placeOrder(s, sim);
  const delivery = await waitForStatus(s.app, shop, orderId, 'CREATED');
  return { sim, account, orderId, delivery };
}

/** POSTs one signed delivery.status.updated event; returns its id. `timestampSec` re-signs as a retry would. */
export async function postStatusEvent(url: string, e: { deliveryRef: string; status: string; id?: string; createdAt?: number; timestampSec?: number }): Promise<{ id: string; res: Response }> {
  const id = e.id ?? `evt_${Math.random().toString(16).slice(2)}`;
  const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date(e.createdAt ?? Date.now()).toISOString(), data: { delivery_id: e.deliveryRef, status: e.status } });
  const headers = signDeliveryWebhook({ secret: WEBHOOK_SECRET, body, timestampSec: e.timestampSec ?? Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
  const res = await fetch(url, { method: 'POST', headers, body });
  expect(res.status).toBe(200);
  return { id, res };
}
