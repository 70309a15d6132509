import { defineConfig } from 'vitest/config';

// Only the unit tests of the pure core, for `npm run test:mutation` (stryker.config.json).
// Stryker runs each mutant against the tests that cover it (coverageAnalysis perTest).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    pool: 'threads',
  },
});
