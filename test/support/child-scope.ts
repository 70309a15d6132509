// Child processes and scratch directories of a test file, cleaned up after each test
// (kept apart from process.ts, which the benchmarks load outside vitest).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { AppProcess } from './process.ts';

/** For a test file: processes to kill and scratch directories to remove after each test. */
export function childProcessScope(prefix: string): { running: AppProcess[]; tempDir: () => string } {
  const running: AppProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    // A killed child may still be writing its database files: removing its directory before it has
    // exited failed once with ENOTEMPTY (CI under load). So wait for the exit, and retry the removal.
    const stopping = running.splice(0);
    for (const p of stopping) p.child.kill('SIGKILL');
    await Promise.all(stopping.map((p) => p.exited));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  return { running, tempDir };
}
