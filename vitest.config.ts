import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A safety net against hangs, not a speed target: a busy machine (CI's cores shared with other work) only
    // makes tests slower, and no test may fail for that (speed is measured by `npm run bench:*`).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Engines start processes and wasm per file; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    // One throwaway PostgreSQL per run (or PARLA_TEST_DATABASE_URL) for the tests that run on both dialects.
    globalSetup: ['test/support/postgres/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
