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
  afterEach(() => {
    for (const p of running.splice(0)) p.child.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  return { running, tempDir };
}
