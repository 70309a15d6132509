import { defineConfig } from 'vitest/config';

// `npm test` runs every project. The integration suite runs twice, once per
// database provider, each test file on a fresh database (test/support/db.ts).
// `courier` holds contract tests over real HTTP that need no database.
const integration = ['test/integration/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'courier', include: ['test/courier/**/*.test.ts'] } },
      { extends: true, test: { name: 'process', include: ['test/process/**/*.test.ts'] } },
      // Real headless Chromium (/usr/bin/chromium) against the app serving the built frontend.
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], env: { TEST_DB: 'sqlite' }, globalSetup: ['test/support/global-setup.ts'] } },
      {
        extends: true,
        test: { name: 'sqlite', include: integration, env: { TEST_DB: 'sqlite' }, globalSetup: ['test/support/global-setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'postgres', include: integration, env: { TEST_DB: 'postgres' }, globalSetup: ['test/support/global-setup.ts'] },
      },
      // Black box: the sandbox courier, the shop simulator and the app as child processes (dev/demo/stack.ts).
      // SQLite by default; a postgres:// E2E_DATABASE_URL or DATABASE_URL runs it on a fresh PostgreSQL database.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 120_000 } },
      // The Dockerfile's build and start commands in a fresh clone (a real `npm ci`: minutes).
      // Not in `npm test`; `npm run test:deploy` and .ci/run run it.
      { extends: true, test: { name: 'deploy', include: ['test/deploy/**/*.test.ts'], testTimeout: 180_000 } },
    ],
  },
});
