import { defineConfig } from 'vitest/config'
import { ACCEPTANCE_FILES, shared } from './vitest.config.js'

/** The acceptance lane: see `ACCEPTANCE_FILES` in vitest.config.ts. */
export default defineConfig({ test: { ...shared, include: ACCEPTANCE_FILES } })
