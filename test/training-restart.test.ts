/**
 * A model is never left in `training`: a crash or shutdown mid-training is resumed by the next start (on the
 * same SQLite file and filesystem blob store), a step that hangs while the server runs fails the model with
 * the reason, and a job whose stored sample vanished fails with that reason.
 */
import { rm, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/load.js'
import { createDeps, type Deps, type DepsOverrides } from '../src/deps.js'
import type { CreateModelInput } from '../src/store/model-types.js'
import type { TrainingStep } from '../src/services/models/training.js'
import type { VoiceProfile } from '../src/voices/types.js'
import { voiceWav } from './helpers/voice-audio.js'

/** A step that never finishes and ignores its abort signal: the worst case a restart has to cope with. */
function hangingStep() {
  let entered!: () => void
  const reached = new Promise<void>((resolve) => (entered = resolve))
  const step: TrainingStep = {
    name: 'test-hang',
    run: () => {
      entered()
      return new Promise(() => {})
    },
  }
  return { step, reached }
}

const INPUT: CreateModelInput = {
  type: 'tts', title: 'interrupted', trainMode: 'fast', visibility: 'private', description: '', tags: [],
  voices: [{ filename: 'a.wav', bytes: voiceWav({ seconds: 2.5 }) }], texts: ['A sample of my voice.'], enhanceAudioQuality: true,
}

describe('training survives restarts', () => {
  let dir: string
  const open: Deps[] = []
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parla-training-'))
  })
  afterEach(async () => {
    for (const d of open.splice(0)) await d.close().catch(() => {})
  })
  afterAll(async () => rm(dir, { recursive: true, force: true }))
  const start = async (overrides: DepsOverrides = {}) => {
    const deps = await createDeps(loadConfig({ env: {}, file: undefined, flags: { dataDir: dir, logLevel: 'silent' } }), overrides)
    open.push(deps)
    const app = await buildApp(deps)
    await app.ready() // runs crash recovery
    return { deps, app }
  }
  const state = async (deps: Deps, account: string, id: string) => (await deps.models.get(account, id)).state

  it('a crash mid-training (the step hangs, the process goes away) is resumed by the next start', async () => {
    const hang = hangingStep()
    const first = await start({ training: { extraSteps: [hang.step], closeTimeoutMs: 200 } })
    const account = await first.deps.keys.createAccount('carol')
    const model = await first.deps.models.create(account, INPUT)
    await hang.reached
    expect(await state(first.deps, account, model.id)).toBe('training')
    // Shutdown cannot stop the hung step; close gives up after closeTimeoutMs, like a process that died.
    await first.app.close()
    await first.deps.close()
    const db = (await createDeps(loadConfig({ env: {}, file: undefined, flags: { dataDir: dir, logLevel: 'silent' } })))
    open.push(db)
    expect(await state(db, account, model.id)).toBe('training') // what the crash left behind

    const { deps: second } = await start() // starting the server runs recovery
    await second.models.training.idle()
    const resumed = await second.models.get(account, model.id)
    expect(resumed).toMatchObject({ state: 'trained', stateReason: '' })
    expect((resumed.profile as VoiceProfile).sources[0]!.key).toBe(`models/${model.id}/voice-0.enhanced.wav`)
    expect(resumed.quality.audios[0]).toMatchObject({ quality_passed: true })
  })

  it('a step that hangs while the server keeps running fails the model with the reason', async () => {
    const hang = hangingStep()
    const { deps } = await start({ training: { extraSteps: [hang.step], trainingTimeoutMs: 400 } })
    const account = await deps.keys.createAccount('dave')
    const model = await deps.models.create(account, INPUT)
    await deps.models.training.idle()
    expect(await deps.models.get(account, model.id)).toMatchObject({
      state: 'failed',
      stateReason: 'training did not finish within 0.4 s; try again with fewer or shorter samples',
    })
  })

  it('a restart that finds the stored sample gone fails the model and says why', async () => {
    const hang = hangingStep()
    const first = await start({ training: { extraSteps: [hang.step], closeTimeoutMs: 100 } })
    const account = await first.deps.keys.createAccount('erin')
    const model = await first.deps.models.create(account, { ...INPUT, enhanceAudioQuality: false })
    await hang.reached
    await first.app.close()
    await first.deps.close()
    await rm(join(dir, 'blobs', model.samples[0]!.key))

    const { deps } = await start()
    await deps.models.training.idle()
    const failed = await deps.models.get(account, model.id)
    expect(failed.state).toBe('failed')
    expect(failed.stateReason).toBe(
      'No voice sample passed the quality check (a.wav: the stored sample could not be read or decoded); upload a clear recording of one speaker',
    )
  })
})
