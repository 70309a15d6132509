// The layers of web/ (ARCHITECTURE.md "Layers"), enforced on the import graph
// madge reads (type imports included): no file or folder cycles, every import
// points to the same layer or one below, every folder has a layer, the pure
// domain has no I/O, and the product never imports dev/ or test/.
// `npm run check:cycles` runs this file alone; `node test/support/web-graph.ts`
// prints the folder graph's cycles and back edges.
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { cycles, folderGraph, folderOf, readWeb, root } from '../support/web-graph.ts';

/** Lowest first. A folder imports only its own layer and the ones below. */
const LAYERS = ['domain', 'infrastructure', 'application', 'edge'] as const;
type Layer = (typeof LAYERS)[number];

/** Every folder (and top-level file) of web/ → its layer. */
const LAYER_OF: Record<string, Layer> = {
  // Pure decisions and shapes: no Prisma, no network, no process.env, nothing above.
  order: 'domain', // the order snapshot dispatch works from, and money (cents, decimal strings)
  lifecycle: 'domain', // the delivery state machine and courier status ranks
  windows: 'domain', // delivery window schedules
  phone: 'domain',
  i18n: 'domain',
  retry: 'domain', // retry policy and budgets
  // Clients and stores: database, queues, Shopify, courier, geocoder, crypto, config.
  ops: 'infrastructure',
  security: 'infrastructure',
  db: 'infrastructure',
  delivery: 'infrastructure', // the courier API client
  geocoding: 'infrastructure',
  jobs: 'infrastructure',
  config: 'infrastructure',
  shopify: 'infrastructure', // the Admin API client, pacer, HMAC
  inbox: 'infrastructure', // the webhook inbox and its worker (topic handlers are passed in)
  'context.ts': 'infrastructure', // the handles services receive
  // Use cases, built on the two layers below.
  settings: 'application',
  transitions: 'application', // lifecycle decisions, stored with their timeline and effects
  slots: 'application',
  privacy: 'application',
  tracking: 'application',
  fulfillment: 'application', // courier events → Shopify fulfillment write-back
  dispatch: 'application',
  rates: 'application',
  flow: 'application',
  // Where requests come in and the process is wired.
  webhooks: 'edge', // Shopify webhook route and topic → handler wiring
  admin: 'edge',
  cli: 'edge',
  frontend: 'edge', // the admin UI (its own build; talks to admin over HTTP)
  'app.ts': 'edge',
  'server.ts': 'edge',
  'runtime.ts': 'edge',
  'index.ts': 'edge',
};

/** One-way rules inside the application layer (from issue 15). */
const NEVER: Record<string, string[]> = {
  fulfillment: ['dispatch'], // fulfillment follows dispatch, never the other way round
  tracking: ['dispatch'], // the tracking page reads deliveries; fulfillment's write-back links to it
  rates: ['fulfillment'], // checkout rates use dispatch's mapping and eligibility
};

/** What the pure domain must not touch (checked on each file's text). */
const IMPURE: Array<[RegExp, string]> = [
  [/@prisma\/client/, '@prisma/client'],
  [/['"]node:(?:http|https|net|dns)['"]|['"]undici['"]/, 'the network'],
  [/\bfetch\(/, 'fetch'],
  [/process\.env/, 'process.env'],
];

let graph: Record<string, string[]>;
let fileCycles: string[][];

beforeAll(async () => {
  const res = await readWeb();
  graph = res.obj();
  fileCycles = res.circular();
}, 60_000);

const rank = (folder: string) => LAYERS.indexOf(LAYER_OF[folder]!);
const webImports = () => Object.entries(graph).flatMap(([f, deps]) => deps.filter((d) => !d.startsWith('..')).map((d) => [f, d] as const));

/** Imports from a lower layer to a higher one, named with both files and both layers. */
export function upwardImports(g: Record<string, string[]>, layerOf = LAYER_OF): string[] {
  const r = (f: string) => LAYERS.indexOf(layerOf[folderOf(f)]!);
  return Object.entries(g).flatMap(([f, deps]) =>
    deps.filter((d) => !d.startsWith('..') && layerOf[folderOf(f)] && layerOf[folderOf(d)] && r(d) > r(f))
      .map((d) => `${f} (${layerOf[folderOf(f)]}) imports ${d} (${layerOf[folderOf(d)]}), a higher layer`));
}

describe('web/ layers', () => {
  it('reads the whole product', () => {
    expect(Object.keys(graph)).toEqual(expect.arrayContaining(['index.ts', 'lifecycle/machine.ts', 'dispatch/service.ts', 'fulfillment/events.ts']));
    expect(graph['dispatch/service.ts']).toContain('transitions/transition.ts');
  });

  it('have no file cycles', () => {
    expect(fileCycles.map((c) => [...c, c[0]].join(' → '))).toEqual([]);
  });

  it('have no folder cycles', () => {
    const g = folderGraph(graph);
    expect(cycles(g).map((scc) => scc.join(' ↔ '))).toEqual([]);
  });

  it('assign every folder a layer', () => {
    const onDisk = readdirSync(`${root}web`, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => e.name);
    const inGraph = Object.keys(graph).filter((f) => !f.startsWith('..')).map(folderOf);
    expect([...new Set([...onDisk, ...inGraph])].filter((f) => !LAYER_OF[f]).sort()).toEqual([]);
    // No stale entries either: every folder named exists.
    expect(Object.keys(LAYER_OF).filter((f) => !onDisk.includes(f))).toEqual([]);
  });

  it('import only their own layer or lower ones', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('keep the one-way rules inside the application layer', () => {
    const wrong = webImports().filter(([f, d]) => NEVER[folderOf(f)]?.includes(folderOf(d))).map(([f, d]) => `${f} → ${d}`);
    expect(wrong).toEqual([]);
  });

  it('keep the domain pure: no Prisma, network, fetch or process.env, and nothing from other layers', () => {
    const domain = Object.keys(graph).filter((f) => !f.startsWith('..') && LAYER_OF[folderOf(f)] === 'domain' && f.endsWith('.ts'));
    expect(domain.length).toBeGreaterThan(5);
    const wrong = domain.flatMap((f) => {
      const text = readFileSync(`${root}web/${f}`, 'utf8');
      const io = IMPURE.filter(([re]) => re.test(text)).map(([, what]) => `${f} (domain) uses ${what}`);
      const deps = graph[f]!.filter((d) => d.startsWith('..') ? !d.startsWith('../node_modules') : rank(folderOf(d)) > 0)
        .map((d) => `${f} (domain) imports ${d} (${LAYER_OF[folderOf(d)] ?? 'outside web/'})`);
      return [...io, ...deps];
    });
    expect(wrong).toEqual([]);
  });

  it('never reach dev/ or test/', () => {
    const outside = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => /^(\.\.\/)+(dev|test)\//.test(d)).map((d) => `${f} → ${d}`));
    expect(outside).toEqual([]);
  });

  it('are listed in web/README.md: the pure folders', () => {
    const readme = readFileSync(`${root}web/README.md`, 'utf8');
    const pure = Object.keys(LAYER_OF).filter((f) => LAYER_OF[f] === 'domain');
    expect(pure.filter((f) => !readme.includes(`\`${f}/\``))).toEqual([]);
  });

  it('name both files and both layers when an import points up', () => {
    const g = { 'db/client.ts': ['dispatch/service.ts'], 'dispatch/service.ts': ['db/client.ts'] };
    expect(upwardImports(g)).toEqual(['db/client.ts (infrastructure) imports dispatch/service.ts (application), a higher layer']);
  });
});
