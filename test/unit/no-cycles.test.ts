// The product's import graph (web/, TypeScript, read by madge): no cycles, no
// development tools or tests imported, and the layering issue 15 set up kept.
// `npm run check:cycles` runs this file alone.
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

// Folder → folders of web/ it must never import (one-way dependencies).
const NEVER: Record<string, string[]> = {
  // The state machine, timeline and transitions sit below every feature.
  lifecycle: ['dispatch', 'fulfillment', 'admin', 'cli', 'privacy', 'shopify', 'settings', 'delivery'],
  // Fulfillment follows dispatch, never the other way round.
  fulfillment: ['dispatch', 'admin', 'cli'],
  // The customer tracking page reads deliveries; fulfillment's write-back links to it.
  tracking: ['dispatch', 'admin', 'cli'],
  // Delivery windows decide for dispatch and checkout; they never call either.
  windows: ['dispatch', 'fulfillment', 'rates', 'admin', 'cli'],
  // Checkout rates use dispatch's mapping and eligibility; nothing below them knows rates.
  rates: ['fulfillment', 'admin', 'cli'],
};

let graph: Record<string, string[]>;
let circular: string[][];

beforeAll(async () => {
  const res = await madge(`${root}web`, {
    baseDir: `${root}web`,
    fileExtensions: ['ts'],
    tsConfig: `${root}tsconfig.json`,
    excludeRegExp: [/^frontend[\\/]/],
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  graph = res.obj();
  circular = res.circular();
}, 60_000);

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : '.');

describe('web/ imports', () => {
  it('reads the whole product', () => {
    expect(Object.keys(graph)).toEqual(expect.arrayContaining(['index.ts', 'lifecycle/machine.ts', 'dispatch/service.ts', 'fulfillment/events.ts']));
    expect(graph['dispatch/service.ts']).toContain('lifecycle/transition.ts');
  });

  it('have no cycles', () => {
    expect(circular.map((c) => [...c, c[0]].join(' → '))).toEqual([]);
  });

  it('never reach dev/ or test/', () => {
    const outside = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => /^(\.\.\/)+(dev|test)\//.test(d)).map((d) => `${f} → ${d}`));
    expect(outside).toEqual([]);
  });

  it('keep the layering', () => {
    const wrong = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => NEVER[folderOf(f)]?.includes(folderOf(d))).map((d) => `${f} → ${d}`));
    expect(wrong).toEqual([]);
  });
});
