// Start-up grows V8's young generation to its largest (module loading keeps most of what it
// allocates): about 30 MB that V8 gives back only after some 10 s of idleness. One full
// collection, once the app is built and before it reports ready, returns it at once and
// compacts what start-up left (issue 24, idle RSS: 175–193 MB → about 136 MB two seconds after
// ready). The young generation grows again under load, as large as the load needs. Capping it
// instead (node --max-semi-space-size=1) gave the same idle figure but cost 60 % more CPU per
// webhook at saturation (docs/benchmarks.md).
import { memoryUsage } from 'node:process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's gc extension: 'last-resort' also shrinks the young generation, which a plain full collection
// right after start-up's allocations does not (V8 shrinks it only when allocation has been slow).
type Collect = (opts?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let collect: Collect | null = null;

function collector(): Collect {
  // `--expose-gc` set now exposes `gc` to contexts created after it (the global one is older).
  collect ??= (globalThis as { gc?: Collect }).gc ?? (setFlagsFromString('--expose-gc'), runInNewContext('gc') as Collect);
  return collect;
}

export interface Released {
  rssMb: { before: number; after: number };
  heapUsedMb: { before: number; after: number };
  ms: number;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** Full, synchronous collections until nothing more is freed (~100 ms on this app's start-up heap): call once, before serving. */
export function releaseStartupMemory(): Released {
  const before = memoryUsage();
  const started = performance.now();
  collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const ms = Math.round(performance.now() - started);
  const after = memoryUsage();
  return { rssMb: { before: mb(before.rss), after: mb(after.rss) }, heapUsedMb: { before: mb(before.heapUsed), after: mb(after.heapUsed) }, ms };
}
