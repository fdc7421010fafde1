/**
 * A voice is usable at once (issue 11): TTS naming a model that is still `created`/`training` waits for
 * training to end (up to `trainingWaitSec`) and then speaks, on all three surfaces; after the wait it is the
 * 409; a `failed` model answers at once with the reason; a client that goes away ends the wait.
 */
import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TrainingStep } from '../src/services/models/training.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { shiftedReference, type Reference } from './helpers/clone.js'
import { LiveClient } from './helpers/live.js'
import { createModel } from './helpers/models.js'

/** A training step that holds jobs while `held` is set, and says when a job reached it. */
function holder() {
  let release: () => void = () => {}
  let held: Promise<void> | null = null
  let arrived: () => void = () => {}
  let reached = new Promise<void>((resolve) => (arrived = resolve))
  const step: TrainingStep = {
    name: 'test-hold',
    async run() {
      arrived()
      if (held) await held
    },
  }
  return {
    step,
    hold() {
      held = new Promise<void>((resolve) => (release = resolve))
      reached = new Promise<void>((resolve) => (arrived = resolve))
    },
    reached: () => reached,
    release: () => {
      held = null
      release()
    },
  }
}

const settled = <T>(p: Promise<T>) => {
  const state = { done: false }
  void p.finally(() => (state.done = true)).catch(() => {})
  return state
}

async function httpTts(s: TestServer, path: string, id: string, signal?: AbortSignal) {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.alice}`, 'content-type': 'application/msgpack' },
    body: encode({ text: 'Hello there.', format: 'wav', reference_id: id }),
    ...(signal && { signal }),
  })
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: new Uint8Array(await res.arrayBuffer()) }
}

async function liveTts(s: TestServer, id: string) {
  const client = await LiveClient.connect(s.url, { authorization: `Bearer ${s.alice}` })
  try {
    const { finish, audio } = await client.speak({ format: 'wav', reference_id: id }, 'Hello there.')
    return { finish, audioBytes: audio.length }
  } finally {
    await client.close()
  }
}

describe('TTS with a voice model that is still training', () => {
  let s: TestServer
  let ref: Reference
  const hold = holder()
  const create = async () => {
    hold.hold()
    const model = await createModel(s, s.asAlice, { voices: [ref.wav], texts: [ref.text], title: 'brand new' })
    expect(model.state).toBe('created')
    await hold.reached()
    return model._id as string
  }

  beforeAll(async () => {
    ref = await shiftedReference(0, 1)
    s = await startTestServer({ trainingWaitSec: 60 }, { training: { extraSteps: [hold.step] } })
    await s.listen()
  })
  afterAll(async () => s.close())

  it('waits on HTTP, SSE and WebSocket until training ends, then speaks', async () => {
    const id = await create()
    const http = httpTts(s, '/v1/tts', id)
    const sse = httpTts(s, '/v1/tts/stream/with-timestamp', id)
    const live = liveTts(s, id)
    const states = [settled(http), settled(sse), settled(live)]
    // Several polls' worth of time: a surface that did not wait would have answered its 409 by now.
    await new Promise((r) => setTimeout(r, 600))
    expect(states.map((x) => x.done)).toEqual([false, false, false])
    expect((await s.deps.models.repo.findById(id))!.state).toBe('training')
    hold.release()
    const [h, e, l] = await Promise.all([http, sse, live])
    expect({ status: h.status, type: h.type }).toEqual({ status: 200, type: 'audio/wav' })
    expect(h.body.length).toBeGreaterThan(10_000)
    expect(e.status).toBe(200)
    expect(new TextDecoder().decode(e.body)).toContain('data: ')
    expect(l.finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(l.audioBytes).toBeGreaterThan(10_000)
  })

  it('a failed model answers at once with its reason, without waiting', async () => {
    const id = await create()
    hold.release()
    await s.deps.models.training.idle()
    await s.deps.db.updateTable('models').set({ state: 'failed', state_reason: 'no voice sample passed' }).where('id', '=', id).execute()
    // The wait is 60 s and the test's limit the same: an answer at all shows it did not wait.
    const res = await s.app.inject({
      method: 'POST',
      url: '/v1/tts',
      headers: { ...s.asAlice, 'content-type': 'application/msgpack' },
      payload: Buffer.from(encode({ text: 'Hello there.', format: 'wav', reference_id: id })),
    })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toEqual({
      status: 409,
      message: `Voice model '${id}' failed training (state: failed): no voice sample passed; create it again with better samples`,
    })
  })

  it('a client that goes away ends the wait: the model is no longer read', async () => {
    const id = await create()
    const get = s.deps.models.get
    let reads = 0
    s.deps.models.get = async (...args) => {
      if (args[1] === id) reads++
      return get(...args)
    }
    try {
      const abort = new AbortController()
      const request = httpTts(s, '/v1/tts', id, abort.signal).catch((err: Error) => err.name)
      while (reads < 3) await new Promise((r) => setTimeout(r, 20))
      abort.abort()
      expect(await request).toBe('AbortError')
      const after = reads
      // Polls come at most 500 ms apart: two periods without a read means the wait ended.
      await new Promise((r) => setTimeout(r, 1200))
      expect(reads - after).toBeLessThanOrEqual(1)
    } finally {
      s.deps.models.get = get
      hold.release()
    }
  })
})

describe('TTS with a voice model still training after the wait', () => {
  let s: TestServer
  let ref: Reference
  const hold = holder()
  beforeAll(async () => {
    ref = await shiftedReference(0, 1)
    s = await startTestServer({ trainingWaitSec: 0.3 }, { training: { extraSteps: [hold.step] } })
    await s.listen()
  })
  afterAll(async () => {
    hold.release()
    await s.close()
  })

  it('is the 409 naming the state, on HTTP and WebSocket', async () => {
    hold.hold()
    const model = await createModel(s, s.asAlice, { voices: [ref.wav], texts: [ref.text] })
    await hold.reached()
    const id = model._id as string
    const message = `Voice model '${id}' is still training (state: training) after the wait for training; try again shortly`
    const res = await httpTts(s, '/v1/tts', id)
    expect({ status: res.status, body: JSON.parse(new TextDecoder().decode(res.body)) }).toEqual({ status: 409, body: { status: 409, message } })
    expect((await liveTts(s, id)).finish).toEqual({ event: 'finish', reason: 'error', message })
  })
})
