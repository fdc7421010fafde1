import { runTtsEngineConformance } from './support/conformance/tts-engine.js'
import { createFakeEngine } from './support/fake-tts-engines.js'

// The fake engines the plumbing tests use keep the same contract as the real ones.
runTtsEngineConformance({ name: 'fake tone engine', create: async () => createFakeEngine('tone'), voice: 'a' })
