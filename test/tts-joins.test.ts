import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { decode, maxStep, rmsDb, type Decoded, type Format } from './helpers/tts-audio.js'

/**
 * No click where text chunks meet. A multi-chunk text (chunk_length 100; `low` latency, so the first join
 * has no pause; a long unpunctuated sentence, so one join falls between words) is rendered as wav and pcm
 * and decoded by ffmpeg; chunk starts come from the SSE endpoint's `chunk_audio_offset_sec`. Around every
 * join the largest sample-to-sample step must stay within what ordinary speech in the same output does.
 */
const TEXT = [
  'The quick brown fox jumps over the lazy dog, near the river bank.',
  'Then it stops, looks around, and listens.',
  'Far away a bell rings twice and the birds fly up from the tall grass along the old stone wall by the road.',
  'Nobody saw it again.',
].join(' ')
const RATE = 44100
/**
 * Half-width of the window checked around each join, seconds: twice the edge fades. Wider windows reach
 * into the speech before a join that has no pause, whose own steps are not clicks.
 */
const AROUND = 0.008

let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => s.close())

const body = (voice: string, format: Format) => ({ text: TEXT, reference_id: voice, chunk_length: 100, min_chunk_length: 0, latency: 'low', format, sample_rate: RATE })

/** Start of every chunk after the first, seconds, from the SSE stream of the same request. */
async function joinTimes(voice: string): Promise<number[]> {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: s.asAlice, payload: body(voice, 'pcm') })
  expect(res.statusCode).toBe(200)
  const starts = new Map<number, number>()
  for (const line of res.body.split('\n')) {
    if (!line.startsWith('data: ')) continue
    const event = JSON.parse(line.slice(6)) as { chunk_seq: number; chunk_audio_offset_sec: number }
    starts.set(event.chunk_seq, event.chunk_audio_offset_sec)
  }
  return [...starts].filter(([seq]) => seq > 0).map(([, t]) => t)
}

/** Largest step inside each 20 ms frame of clear speech (frames louder than -30 dBFS). */
function speechSteps(x: Float32Array): number[] {
  const frame = Math.round(RATE * 0.02)
  const steps: number[] = []
  for (let at = 0; at + frame <= x.length; at += frame) {
    if (rmsDb(x.subarray(at, at + frame)) > -30) steps.push(maxStep(x, at, at + frame))
  }
  return steps.sort((a, b) => a - b)
}

function expectSmoothJoins(audio: Decoded, joins: readonly number[]): void {
  const x = audio.samples
  const typical = speechSteps(x)[Math.floor(speechSteps(x).length / 2)]!
  expect(typical).toBeGreaterThan(0.01)
  for (const t of joins) {
    const at = Math.round(t * RATE)
    const w = Math.round(AROUND * RATE)
    expect(maxStep(x, at - w, at + w), `join at ${t.toFixed(3)} s`).toBeLessThanOrEqual(typical)
  }
  // The check would catch a click: a step of a typical speech peak's size at a join exceeds it.
  const clicked = x.slice()
  const at = Math.round(joins[0]! * RATE)
  clicked[at] = clicked[at - 1]! + 0.3
  expect(maxStep(clicked, at - 10, at + 10)).toBeGreaterThan(typical)
}

describe.each(['festival-slt', 'espeak-ng-en-us'])('%s', (voice) => {
  let joins: number[]
  beforeAll(async () => {
    joins = await joinTimes(voice)
    // First phrase, the rest of sentence 1, sentence 2, then the long sentence cut at a word: >= 5 joins.
    expect(joins.length).toBeGreaterThanOrEqual(4)
  })

  it.each(['wav', 'pcm'] as const)('%s: no click at any chunk join', async (format) => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: body(voice, format) })
    expect(res.statusCode).toBe(200)
    const audio = await decode(res.rawPayload, format, RATE)
    expect(audio.sampleRate).toBe(RATE)
    expect(audio.seconds).toBeGreaterThan(joins.at(-1)! + 0.5)
    expectSmoothJoins(audio, joins)
  })
})
