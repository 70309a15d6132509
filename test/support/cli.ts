// The operator CLI as a child process against a test app's database and sandbox.
// Asynchronous: the app and the sandbox in the test process keep serving while it runs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.ts';
import type { Scenario } from './scenario.ts';

export function cliOf(s: Scenario) {
  return (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(ROOT, 'web/cli/main.ts'), ...args], {
        env: { PATH: process.env.PATH, DATABASE_URL: s.app.config.databaseUrl, ENCRYPTION_KEY: s.app.env.ENCRYPTION_KEY!, COURIER_TEST_BASE_URL: s.sandbox.url, LOG_LEVEL: 'error' },
        encoding: 'utf8',
      }, (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
}
