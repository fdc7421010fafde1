import { expect } from 'vitest'
import type { TestServer } from './app.js'
import { multipart, voiceWav } from './voice-audio.js'

export interface CreateFields {
  title?: string
  visibility?: string
  tags?: string[]
  texts?: string[]
  description?: string
  type?: string
  voices?: Uint8Array[]
}

/** Creates a model with JSON (base64 voices) and returns the 201 entity. */
export async function createModel(s: TestServer, as: { authorization: string }, fields: CreateFields = {}) {
  const { voices = [voiceWav({ seconds: 1.5 })], ...rest } = fields
  const res = await s.app.inject({
    method: 'POST',
    url: '/model',
    headers: { ...as, 'content-type': 'application/json' },
    payload: { title: 'A voice', ...rest, voices: voices.map((v) => Buffer.from(v).toString('base64')) },
  })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as Record<string, any>
}

/** Creates a model with a hand-built multipart body. */
export async function createMultipart(s: TestServer, as: { authorization: string }, parts: Parameters<typeof multipart>[0]) {
  const { body, contentType } = multipart(parts)
  return s.app.inject({ method: 'POST', url: '/model', headers: { ...as, 'content-type': contentType }, payload: body })
}

/**
 * Polls `GET /model/{id}` until the state is `trained` or `failed` (or the timeout passes). The timeout is a
 * hang guard below the test timeout, not a speed check: training took 30 s on a machine at load 20.
 */
export async function waitForTraining(s: TestServer, as: { authorization: string }, id: string, timeoutMs = 150_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const res = await s.app.inject({ method: 'GET', url: `/model/${id}`, headers: as })
    expect(res.statusCode, res.body).toBe(200)
    const model = res.json() as Record<string, any>
    if (model.state === 'trained' || model.state === 'failed') return model
    if (Date.now() > until) throw new Error(`model ${id} still ${model.state} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export async function getJson(s: TestServer, as: { authorization: string }, url: string) {
  const res = await s.app.inject({ method: 'GET', url, headers: as })
  return { status: res.statusCode, body: res.json() as any }
}
