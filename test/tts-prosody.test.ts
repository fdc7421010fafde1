import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { TtsEngine } from '../src/engines/tts/types.js'
import { planText } from '../src/text/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { medianPitch, pcm16, speechRmsDb, transcribe } from './helpers/tts-audio.js'

/**
 * What the voice does with the request: speed, expression tags, normalization, speakers and the default
 * voice per language. Audio is measured (duration, F0, level) or transcribed by pocketsphinx.
 */
const RATE = 16000
let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  vi.restoreAllMocks()
  await s.close()
})

async function speak(body: Record<string, unknown>, model?: string): Promise<Float32Array> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/v1/tts',
    headers: { ...s.asAlice, ...(model && { model }) },
    payload: { format: 'pcm', sample_rate: RATE, ...body },
  })
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  return pcm16(res.rawPayload)
}

const toWav = (x: Float32Array) => {
  const bytes = Buffer.alloc(x.length * 2)
  for (let i = 0; i < x.length; i++) bytes.writeInt16LE(Math.round(Math.max(-1, Math.min(1, x[i]!)) * 32767), i * 2)
  return bytes
}
const heard = (x: Float32Array) => transcribe(toWav(x), 'pcm', RATE)
const semitones = (a: number, b: number) => 12 * Math.log2(a / b)

describe('prosody.speed', () => {
  const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs away into the forest, far from home.'

  const ratios = async (voice: string) => {
    const normal = await speak({ text: TEXT, reference_id: voice })
    const slow = await speak({ text: TEXT, reference_id: voice, prosody: { speed: 0.5 } })
    const fast = await speak({ text: TEXT, reference_id: voice, prosody: { speed: 2 } })
    // Whole outputs: the pauses scale with the speech.
    expect(slow.length / normal.length).toBeGreaterThan(2 * 0.95)
    expect(slow.length / normal.length).toBeLessThan(2 * 1.05)
    expect(fast.length / normal.length).toBeGreaterThan(0.5 * 0.95)
    expect(fast.length / normal.length).toBeLessThan(0.5 * 1.05)
    return { normal, slow, fast }
  }

  it('festival-slt (default voice): 0.5 and 2.0 change the duration by that factor within 5 %, not the pitch', async () => {
    const { normal, slow, fast } = await ratios('festival-slt')
    const f0 = medianPitch(normal, RATE)
    for (const changed of [slow, fast]) expect(Math.abs(medianPitch(changed, RATE) / f0 - 1)).toBeLessThan(0.05)
  })

  it('flite-rms: 0.5 and 2.0 change the duration by that factor within 5 %', async () => {
    await ratios('flite-rms')
  })
})

describe('expression tags', () => {
  it('are never spoken: s1 (happy)/(whispering) and s2-pro [whispers]/[excited]', async () => {
    const s1 = await heard(await speak({ text: '(happy) What a lovely day. (whispering) Keep it secret.' }, 's1'))
    expect(s1).toMatch(/lovely day/)
    expect(s1).toMatch(/secret/)
    expect(s1).not.toMatch(/happy|whisper/)
    const s2 = await heard(await speak({ text: '[whispers] Keep it secret. [excited] We won the match!' }, 's2-pro'))
    expect(s2).toMatch(/secret/)
    expect(s2).toMatch(/match/)
    expect(s2).not.toMatch(/whisper|excite/)
    // The recogniser does hear these words when they are text, so their absence above means something.
    expect(await heard(await speak({ text: 'Happy whispers. Excited whispering.' }))).toMatch(/happy.*whisper.*excite/)
  })

  it('change prosody: whispering is much quieter; excited is higher and faster', async () => {
    const plain = await speak({ text: 'Keep it secret, nobody must know about it.' }, 's1')
    const whisper = await speak({ text: '(whispering) Keep it secret, nobody must know about it.' }, 's1')
    // The table says -10 dB (on top of loudness normalization).
    expect(speechRmsDb(plain, RATE) - speechRmsDb(whisper, RATE)).toBeGreaterThan(6)

    const neutral = await speak({ text: 'We won the match today, what a great game.' }, 's2-pro')
    const excited = await speak({ text: '[excited] We won the match today, what a great game.' }, 's2-pro')
    // +2 semitones, 12 % faster in the table.
    expect(semitones(medianPitch(excited, RATE), medianPitch(neutral, RATE))).toBeGreaterThan(1)
    expect(excited.length / neutral.length).toBeLessThan(0.95)
  })
})

describe('normalize', () => {
  const TEXT = 'I paid $1,250 on 3/4/2025 for the car.'

  it('expands "$1,250 on 3/4/2025" as a person says it, in the text and in the audio', async () => {
    const [chunk] = planText(TEXT, { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 50, latency: 'balanced' })
    expect(chunk!.spoken).toBe('I paid one thousand two hundred fifty dollars on March fourth, twenty twenty-five for the car.')
    const words = await heard(await speak({ text: TEXT }))
    expect(words).toMatch(/thousand two hundred fifty dollars/)
    expect(words).toMatch(/march/)
  })
})

describe('voices', () => {
  it('multi-speaker: <|speaker:N|> with two reference_ids speaks each part in its voice (F0 per part)', async () => {
    const x = await speak({
      text: '<|speaker:0|>Good morning, how are you doing today?<|speaker:1|>I am doing very well, thank you for asking.',
      reference_id: ['festival-slt', 'flite-rms'],
    }, 's2-pro')
    // The parts meet at the longest pause in the middle of the output.
    const frame = RATE / 100
    let best = { at: 0, length: 0 }
    let run = 0
    for (let f = Math.floor(x.length * 0.25 / frame); f < Math.floor(x.length * 0.75 / frame); f++) {
      let e = 0
      for (let i = f * frame; i < (f + 1) * frame; i++) e += x[i]! * x[i]!
      run = e / frame < 1e-6 ? run + 1 : 0
      if (run > best.length) best = { at: (f + 1 - run / 2) * frame, length: run }
    }
    expect(best.length).toBeGreaterThan(10)
    const first = medianPitch(x.subarray(0, best.at), RATE)
    const second = medianPitch(x.subarray(best.at), RATE)
    // slt is a female voice (~175 Hz), rms a male one (~100 Hz).
    expect(first).toBeGreaterThan(150)
    expect(second).toBeLessThan(130)
    expect(semitones(first, second)).toBeGreaterThan(5)
  })

  it('with no reference_id, German is spoken by eSpeak NG and English by festival', async () => {
    const espeak = await s.deps.speech.engines.get('espeak-ng')
    const festival = await s.deps.speech.engines.get('festival')
    const spies = [espeak, festival].map((e: TtsEngine) => vi.spyOn(e, 'synthesize'))
    const german = await speak({ text: 'Guten Morgen, wie geht es Ihnen heute? Das Wetter ist schön.' })
    expect(speechRmsDb(german, RATE)).toBeGreaterThan(-30)
    expect(spies[0]!.mock.calls.map(([r]) => r.voice)).toEqual(['de'])
    expect(spies[1]).not.toHaveBeenCalled()
    await speak({ text: 'Good morning, how are you today?' })
    expect(spies[1]!.mock.calls.map(([r]) => r.voice)).toEqual(['slt'])
    expect(spies[0]).toHaveBeenCalledTimes(1)
    for (const spy of spies) spy.mockRestore()
  })

  it('a short phrase keeps the chosen voice even where statistics call it another language', async () => {
    const flite = await s.deps.speech.engines.get('flite')
    const espeak = await s.deps.speech.engines.get('espeak-ng')
    const spies = [flite, espeak].map((e: TtsEngine) => vi.spyOn(e, 'synthesize'))
    // tinyld alone reads "Let me check." as Spanish (see src/text/language.test.ts).
    const x = await speak({ text: 'Let me check.', reference_id: 'flite-rms' })
    expect(speechRmsDb(x, RATE)).toBeGreaterThan(-30)
    expect(spies[0]!.mock.calls.map(([r]) => r.voice)).toEqual(['rms'])
    expect(spies[1]).not.toHaveBeenCalled()
    for (const spy of spies) spy.mockRestore()
  })
})
