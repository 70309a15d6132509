// `node test/bench/profile-top.ts <file.cpuprofile> [n] [--from s] [--to s] [--every s]`: the top self-time
// functions of a V8 CPU profile (node --cpu-prof), and the share of time by package, for the benchmark
// notes. --from/--to keep the samples of one part of the run (seconds since the profile started), e.g.
// a sale's paced bookings apart from its burst of webhooks and its write-backs. --every s first prints
// the main thread's busy seconds (samples not idle) per s-second window of the whole profile, to find those parts.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }
const { positionals, values } = parseArgs({ allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' }, every: { type: 'string' } } });
const [file, n = '25'] = positionals;
if (!file) throw new Error('usage: node test/bench/profile-top.ts <file.cpuprofile> [n] [--from s] [--to s] [--every s]');
const seconds = (name: 'from' | 'to' | 'every', fallback: number) => {
  if (values[name] === undefined) return fallback * 1e6;
  const v = Number(values[name]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: expected seconds (0 or more), got ${values[name]}`);
  return v * 1e6;
};
const [from, to, every] = [seconds('from', 0), seconds('to', Infinity), seconds('every', 0)];
if (values.every !== undefined && every === 0) throw new Error('--every: expected seconds above 0, got 0');
const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
// timeDeltas: µs since the previous sample (the first: since the profile started).
let at = 0;
const idle = new Set(prof.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
const busy: number[] = []; // --every: the main thread's non-idle µs per window
prof.samples.forEach((id, i) => {
  const dt = prof.timeDeltas[i] ?? 0;
  at += dt;
  if (at >= from && at < to) self.set(id, (self.get(id) ?? 0) + dt);
  if (!every || idle.has(id)) return;
  const w = Math.floor(at / every);
  busy[w] = (busy[w] ?? 0) + dt;
});
if (every) {
  console.log(`main thread busy per ${every / 1e6} s window (window start: busy s):`);
  console.log(Array.from(busy, (b, w) => `${(w * every) / 1e6}: ${((b ?? 0) / 1e6).toFixed(2)}`).join('  '));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFn = new Map<string, number>();
const byPkg = new Map<string, number>();
for (const node of prof.nodes) {
  const t = self.get(node.id) ?? 0;
  if (!t) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(web|test|dev)\//, '$1/');
  const key = `${functionName || '(anonymous)'}  ${short}:${lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + t);
  const pkg = url.includes('node_modules/') ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1') : url.startsWith('node:') || !url ? `(${functionName || 'native'})`.replace(/^\((garbage collector|idle|program)\)$/, '($1)') : url.includes('/web/') ? 'web/ (our code)' : 'other';
  byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
}
const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)} %`;
console.log(`profile ${file}: ${(total / 1e6).toFixed(2)} s sampled${values.from || values.to ? ` from ${from / 1e6} s to ${to / 1e6} s` : ''}`);
console.log('\nby package:');
for (const [k, t] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${pct(t)}  ${k}`);
console.log('\ntop self time:');
for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(t)}  ${k}`);
