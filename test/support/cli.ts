// The operator CLI as a child process against a test app's database and sandbox.
// Asynchronous: the app and the sandbox in the test process keep serving while it runs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.ts';
import type { Scenario } from './scenario.ts';

export interface CliResult { status: number; stdout: string; stderr: string }

/**
 * Runs `web/cli/main.ts` with exactly this environment (plus PATH). Never spawnSync: an app
 * in the test process must keep serving, and a blocked event loop lets its keep-alive
 * timer close a socket the next request has just picked (ECONNRESET).
 */
export function runCli(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'web/cli/main.ts'), ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

export function cliOf(s: Scenario) {
  return (...args: string[]) =>
    runCli({ DATABASE_URL: s.app.config.databaseUrl, ENCRYPTION_KEY: s.app.env.ENCRYPTION_KEY!, COURIER_TEST_BASE_URL: s.sandbox.url, LOG_LEVEL: 'error' }, ...args);
}
