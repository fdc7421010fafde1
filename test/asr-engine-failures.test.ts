import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AsrEngine } from '../src/engines/asr/types.js'
import { SpeechError } from '../src/errors.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { createFakeAsrEngine } from './support/fake-asr-engine.js'
import { captureLogs } from './support/log-capture.js'
import { toWav } from './support/wav.js'

/**
 * `/v1/asr` when its engine fails (a fake recognizer: this is plumbing): a proper status and
 * `{status, message}` with no internals, logged once with the request id; a working engine answers as usual.
 */
const logs = captureLogs()
let failure: Error | undefined
let s: TestServer

beforeAll(async () => {
  const base = createFakeAsrEngine()
  const engine: AsrEngine = {
    ...base,
    transcribe: async (samples, options) => {
      if (failure) throw failure
      return base.transcribe(samples, options)
    },
  }
  s = await startTestServer({}, { asrEngine: () => engine, logger: logs.logger })
  await s.listen()
})
afterAll(() => s?.close())
beforeEach(() => void logs.lines.splice(0))

async function transcribe(): Promise<{ status: number; body: unknown }> {
  const form = new FormData()
  form.append('audio', new Blob([toWav(new Float32Array(16000 * 2).map((_, i) => 0.3 * Math.sin(i / 5)), 16000)]), 'tone.wav')
  const res = await fetch(`${s.url}/v1/asr`, { method: 'POST', body: form, headers: s.asAlice })
  return { status: res.status, body: await res.json() }
}

describe('/v1/asr when the engine fails', () => {
  it.each([
    ['an engine fault', new SpeechError('engine_failed', '[fake-asr] decoder crashed (test)'), 502],
    ['a bug (plain Error)', new Error('something unexpected (test)'), 500],
  ])('%s: a 5xx with {status, message}, logged once with the request id', async (_name, err, status) => {
    failure = err
    const res = await transcribe()
    expect(res).toEqual({ status, body: { status, message: 'Internal server error' } })
    const errors = logs.errors()
    expect(errors, JSON.stringify(logs.lines)).toHaveLength(1)
    expect(errors[0]!.reqId).toBeTruthy()
    expect(JSON.stringify(errors[0])).toContain('(test)')
  })

  it('answers as usual when the engine works', async () => {
    failure = undefined
    const res = await transcribe()
    expect(res.status).toBe(200)
    expect((res.body as { text: string }).text.toLowerCase()).toContain('hello world')
    expect(logs.errors()).toEqual([])
  })
})
