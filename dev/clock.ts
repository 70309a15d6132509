// A movable clock for development (`npm run dev`, the demo): the app's time is the system
// time plus an offset in milliseconds written as text in DEV_CLOCK_FILE. Writing the file
// moves the clock and wakes the app (web/ops/clock.ts onJump). Production refuses it.
import { readFileSync, watch, watchFile, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { installClock } from '../web/ops/clock.ts';

function readOffset(file: string): number {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : 0;
  } catch {
    return 0;
  }
}

export function installFileClock(file: string): void {
  let offset = readOffset(file);
  const listeners = new Set<() => void>();
  installClock({ now: () => Date.now() + offset, onJump: (l) => (listeners.add(l), () => void listeners.delete(l)) });
  const changed = () => {
    const next = readOffset(file);
    if (next === offset) return;
    offset = next;
    for (const l of listeners) l();
  };
  // Told by the kernel (inotify), not by a stat every 100 ms: that poll woke the app and a pool
  // thread 10 times a second, and the benchmarks' app CPU counted it (docs/benchmarks.md, thirty-eighth session).
  // The directory is watched, as the file may not exist yet; a directory that cannot be watched falls back to the poll.
  try {
    watch(dirname(file), (_event, name) => {
      if (name === null || name === basename(file)) changed();
    }).unref();
  } catch {
    watchFile(file, { interval: 100 }, changed).unref();
  }
}

/** Moves the app's clock so that it reads `to` now (null: back to the system time). */
export function moveFileClock(file: string, to: number | null): void {
  writeFileSync(file, String(to === null ? 0 : to - Date.now()));
}
