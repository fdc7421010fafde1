import { runAsrEngineConformance } from './support/conformance/asr-engine.js'
import { createFakeAsrEngine } from './support/fake-asr-engine.js'

// The fake recognizer the plumbing tests use keeps the same contract as pocketsphinx, but hears only "hello world".
runAsrEngineConformance({
  name: 'fake recognizer',
  create: async () => {
    const engine = createFakeAsrEngine()
    engine.finishWarming()
    return engine
  },
  maxWer: 0,
  skip: { accuracy: 'it hears "hello world" whatever is said' },
})
