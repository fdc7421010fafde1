import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config'

/**
 * The acceptance lane (`npm run test:acceptance`): end-to-end runs through real processes that take minutes
 * together: the CLI as a user runs it, a real browser, several nodes behind nginx, recognition of real and
 * re-encoded speech, cloning acceptance, fuzzing, the real Fish SDKs and agent frameworks, load and stress
 * runs. `npm test` runs the rest (checks, unit and API tests) and `npm run test:all` (CI, the README's second
 * command) runs both. Same no-flake rule in both lanes.
 */
export const ACCEPTANCE_FILES = [
  'test/cli.test.ts',
  'test/asr-cli.test.ts',
  'test/quota-cli.test.ts',
  'test/asr-formats.test.ts',
  'test/asr-real-speech.test.ts',
  'test/clone-acceptance.test.ts',
  'test/multi-node.test.ts',
  'test/quota-cluster.test.ts',
  'test/quota-nodes.test.ts',
  'test/playground.test.ts',
  'test/playground-mic.test.ts',
  'test/fuzz.test.ts',
  'test/upstream.test.ts',
  'test/models-pull.test.ts',
  // `parla models catalog` / `pull <name>` against a local mirror, a real server start and the CLI.
  'test/models-catalog.test.ts',
  'test/playground-hint.test.ts',
  'test/playground-dictate.test.ts',
  // Kokoro packages built from the upstream code, through every surface, and their broken variants.
  'test/kokoro.test.ts',
  'test/kokoro-surfaces.test.ts',
  // Piper voices built from rhasspy/piper's own code: `models add`, discovery and every surface on a real server.
  'test/piper-models.test.ts',
  'test/model-checks.test.ts',
  // The real Fish SDKs and agent frameworks' frame sequences, unmodified, end to end.
  'test/tts-sdk.test.ts',
  'test/asr-sdk.test.ts',
  'test/live-sdk.test.ts',
  'test/clients-live.test.ts',
  'test/openai-realtime-sdk.test.ts',
  'test/livekit-stt-replay.test.ts',
  'test/clone-references.test.ts',
  // Real `parla serve` processes stopped by signals, with their log's reader present, gone or stuck.
  'test/shutdown.test.ts',
  // Load and stress runs.
  'test/tts-load.test.ts',
  'src/engines/tts/flite/flite-stress.test.ts',
]

export const shared: NonNullable<ViteUserConfig['test']> = {
  // A safety net against hangs, not a speed target: a busy machine (CI's cores shared with other work) only
  // makes tests slower, and no test may fail for that (speed is measured by `npm run bench:*`).
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // Engines start processes and wasm per file; two cores, so two files at a time.
  pool: 'forks',
  maxWorkers: 2,
  // One throwaway PostgreSQL per run (or PARLA_TEST_DATABASE_URL) for the tests that run on both dialects.
  // At the end, no `parla serve` the run started may be left alive (test/support/leftovers/global-setup.ts).
  globalSetup: ['test/support/leftovers/global-setup.ts', 'test/support/postgres/global-setup.ts'],
  reporters: ['default', './test/support/summary-reporter.ts'],
}

export default defineConfig({
  test: {
    ...shared,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...ACCEPTANCE_FILES],
  },
})
