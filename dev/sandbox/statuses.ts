// The sandbox's delivery status set (the spec names only driver_assigned). Pure.
//
//   pending (initial, shown on reads, never sent as an event)
//     -> accepted (optional) -> driver_assigned -> picked_up -> in_transit -> out_for_delivery -> delivered
//                                                                           out_for_delivery -> delivery_attempted -> failed -> returned
//     pending / accepted / driver_assigned -> cancelled
// Terminal: delivered, cancelled, returned, and failed when the outcome is "failed".
import type { Outcome } from './types.ts';

export const DELIVERY_STATUSES = [
  'pending', 'accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery',
  'delivered', 'delivery_attempted', 'failed', 'returned', 'cancelled',
] as const;

export const OUTCOMES: Outcome[] = ['delivered', 'failed', 'returned', 'cancelled'];

const EDGES: Record<string, string[]> = {
  pending: ['accepted', 'driver_assigned', 'cancelled'],
  accepted: ['driver_assigned', 'cancelled'],
  driver_assigned: ['picked_up', 'cancelled'],
  picked_up: ['in_transit'],
  in_transit: ['out_for_delivery'],
  out_for_delivery: ['delivered', 'delivery_attempted'],
  delivery_attempted: ['failed'],
  failed: ['returned'],
  delivered: [],
  returned: [],
  cancelled: [],
};

const SCRIPTS: Record<Outcome, string[]> = {
  delivered: ['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered'],
  failed: ['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivery_attempted', 'failed'],
  returned: ['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivery_attempted', 'failed', 'returned'],
  cancelled: ['accepted', 'driver_assigned', 'cancelled'],
};

export interface StatusOptions {
  acceptedStep: boolean;
}

/** The scripted path for an outcome (without "accepted" when that step is off). */
export function scriptFor(outcome: Outcome, o: StatusOptions): string[] {
  return o.acceptedStep ? SCRIPTS[outcome] : SCRIPTS[outcome].filter((s) => s !== 'accepted');
}

export function isKnownStatus(s: string): boolean {
  return (DELIVERY_STATUSES as readonly string[]).includes(s);
}

/** Statuses to emit to get from `from` to `to`, or null if `to` cannot be reached. */
export function stepsTo(from: string, to: string, o: StatusOptions): string[] | null {
  if (from === to || !isKnownStatus(to)) return null;
  // Prefer a scripted path (so "to: cancelled" from pending goes via a driver, as in real life).
  for (const outcome of OUTCOMES) {
    const script = scriptFor(outcome, o);
    const i = from === 'pending' ? -1 : script.indexOf(from);
    const j = script.indexOf(to);
    if ((from === 'pending' || i >= 0) && j > i) return script.slice(i + 1, j + 1);
  }
  // Otherwise the shortest walk over the graph.
  const prev = new Map<string, string>([[from, '']]);
  const queue = [from];
  while (queue.length) {
    const cur = queue.shift()!;
    for (const next of EDGES[cur] ?? []) {
      if (cur === 'pending' && next === (o.acceptedStep ? 'driver_assigned' : 'accepted')) continue;
      if (prev.has(next)) continue;
      prev.set(next, cur);
      if (next === to) {
        const path = [to];
        for (let p = cur; p !== from; p = prev.get(p)!) path.unshift(p);
        return path;
      }
      queue.push(next);
    }
  }
  return null;
}

/** The next status toward the outcome, or null when the order has arrived (or cannot). */
export function nextStatus(from: string, outcome: Outcome, o: StatusOptions): string | null {
  return stepsTo(from, outcome, o)?.[0] ?? null;
}
