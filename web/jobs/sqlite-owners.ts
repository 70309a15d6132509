// Who holds a claimed SQLite job, and whether that holder is still alive.
//
// ONE machine per SQLite database file, normally one app process. Each claim
// records its owner as `<instanceId>@<host>:<pid>:<random>`. At start-up every
// job left `active` by an owner that is not alive is given back at once, so
// the crash/restart path re-runs interrupted jobs without waiting for a lease
// to run out. An owner counts as alive if it is another queue in this process,
// or a process on this host whose pid still exists (an old process finishing
// during a deploy keeps its jobs; a pid reused by an unrelated process only
// delays the give-back until the lease expires). A killed process stays a
// zombie until its parent reaps it, and `kill(pid, 0)` still succeeds then, so
// on Linux /proc/<pid>/stat is read and a zombie counts as dead. Every
// DEAD_OWNER_SWEEP_MS the worker also gives back jobs of owners on this host
// that are provably dead, without waiting for their lease. An owner on another
// host is presumed dead: that is the single-machine rule. Claims themselves are
// atomic across processes (one UPDATE … RETURNING under SQLite's write lock).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Owners (lockedBy) of the queues running in this process. */
export const localOwners = new Set<string>();
const OWNER = /@([^@]*):(\d+):[0-9a-z]+$/;

/**
 * What we know about the worker that claimed a job (its lockedBy): 'alive' (may still
 * be running it), 'dead' (a process on this host that is gone or a zombie) or
 * 'unknown' (another host, a previous life of this pid, or an unreadable owner).
 */
export function ownerState(owner: string | null, host = hostname()): 'alive' | 'dead' | 'unknown' {
  if (!owner) return 'unknown';
  if (localOwners.has(owner)) return 'alive';
  const m = OWNER.exec(owner);
  if (!m || m[1] !== host) return 'unknown';
  const pid = Number(m[2]);
  if (pid === process.pid) return 'unknown'; // a previous life of this pid (e.g. PID 1 in a restarted container)
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead';
  }
  return isZombie(pid) ? 'dead' : 'alive';
}

/** Linux: a killed process not yet reaped by its parent (state Z, or X while being reaped). */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    // Gone between kill(0) and here counts as dead; no /proc (macOS) as not a zombie.
    return (e as NodeJS.ErrnoException).code === 'ENOENT' && process.platform === 'linux';
  }
  // "pid (comm) S ...": comm may contain spaces and parentheses, so read after the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** How often running workers look for jobs held by dead processes on this host. */
export const DEAD_OWNER_SWEEP_MS = 2_000;
