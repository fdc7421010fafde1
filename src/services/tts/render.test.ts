import { describe, expect, it } from 'vitest'
import { textWords } from '../../engines/tts/text-words.js'
import type { TtsEngine } from '../../engines/tts/types.js'
import { planText } from '../../text/index.js'
import { plainTtsParams } from './params.js'
import { renderSpeech, type RenderEvent } from './render.js'

const RATE = 16_000
const tone = (sec: number) => Float32Array.from({ length: sec * RATE }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 200 * i) / RATE))

/** An engine that finds its word times after the audio (as alignment does): a second of tone per word, `final`, then the words. */
const alignedAfter: TtsEngine = {
  id: 'after',
  sampleRate: RATE,
  capabilities: { languages: ['en'], wordTimings: 'estimated', rate: false, pitch: false, streaming: 'incremental', sampling: [] },
  voices: () => [{ id: 'v', title: 'v', languages: ['en'], gender: 'unknown', description: '' }],
  async *synthesize(request) {
    const words = textWords(request.text)
    for (const _ of words) yield { samples: tone(1), words: [] }
    yield { samples: new Float32Array(0), words: [], final: true }
    yield { samples: new Float32Array(0), words: words.map((w, i) => ({ text: w.text, start: i + 0.1, end: i + 0.9, charStart: w.start, charEnd: w.end })) }
  },
  close: async () => {},
}

/** An engine that speaks a second of tone per call, handing over the buffer it made (`owned`) or not. */
const toneEngine = (owned: boolean, made: Float32Array[]): TtsEngine => ({
  ...alignedAfter,
  id: owned ? 'owned' : 'kept',
  async *synthesize() {
    const samples = tone(1)
    made.push(samples)
    yield { samples, words: [], ...(owned && { owned: true }) }
    yield { samples: new Float32Array(0), words: [], final: true }
  },
})

async function renderedAudio(engine: TtsEngine): Promise<Float32Array> {
  const params = plainTtsParams('one two three', 'pcm')
  const chunks = planText(params.text, { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 50, latency: 'balanced' })
  const parts: Float32Array[] = []
  for await (const event of renderSpeech({ chunks, params, outputRate: RATE, words: false, chooseVoice: () => ({ modelId: 'x', engine, voiceId: 'v', languages: ['en'] }) })) {
    if (event.type === 'audio') parts.push(event.samples)
  }
  return Float32Array.from(parts.flatMap((p) => [...p]))
}

describe('render', () => {
  it('levels a piece the engine handed over in place, without copying it first, and leaves other pieces as they were', async () => {
    const owned: Float32Array[] = []
    const kept: Float32Array[] = []
    const fromOwned = await renderedAudio(toneEngine(true, owned))
    const fromKept = await renderedAudio(toneEngine(false, kept))
    // The same audio either way (loudness normalization changes the tone's level, so in place shows).
    expect(fromOwned).toEqual(fromKept)
    expect(kept[0]).toEqual(tone(1))
    expect(owned[0]).not.toEqual(tone(1))
  })

  it('maps words sent after their audio through the time-stretch the audio had', async () => {
    const params = plainTtsParams('one two three', 'pcm')
    const chunks = planText(params.text, { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 50, latency: 'balanced' })
    const events: RenderEvent[] = []
    for await (const event of renderSpeech({
      chunks,
      params,
      outputRate: RATE,
      // A cloned voice at half the tempo, by DSP: every engine second becomes two.
      chooseVoice: () => ({ modelId: 'x', engine: alignedAfter, voiceId: 'v', languages: ['en'], adaptation: { pitchSemitones: 0, rate: 0.5, formantScale: 1, gainDb: 0, tempoByDsp: true } }),
      stretch: async (samples, _rate, { timeRatio }) => Float32Array.from({ length: Math.round(samples.length * timeRatio) }, (_, i) => samples[Math.floor(i / timeRatio)]!),
    })) events.push(event)
    const last = events.filter((e) => e.type === 'alignment').at(-1)!
    expect(last.type === 'alignment' && last.segments.map((s) => [s.text, s.start, s.end])).toEqual([
      ['one', 0.2, 1.8], ['two', 2.2, 3.8], ['three', 4.2, 5.8],
    ])
  })
})
