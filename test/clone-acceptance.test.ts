/**
 * Issue 6 acceptance, end to end through POST /v1/tts: reference speakers made by shifting festival slt
 * (+4 and -5 semitones, tempo ×0.85 and ×1.2) are cloned from inline references, and the output speaking
 * another text is measured against the reference:
 *
 * - median F0 within 5 % of the reference's (src/audio/dsp/pitch.ts, YIN);
 * - speaking rate (syllables per second of speech, from the transcript) within 10 %;
 * - timbre: `timbreDistance` (RMS dB difference of the long-term average spectral envelopes, level and tilt
 *   removed; src/audio/dsp/timbre-compare.ts) to the reference clip is smaller than the unadapted base voice's.
 *   Both texts differ from the clip's, and the distance between two texts of one voice is itself 0.4-0.7 dB,
 *   so the test also measures against the reference speaker saying the output's text, where only the voice
 *   differs (the cloned output must at least halve the base voice's distance there);
 * - word error rate of Parla's ASR (pocketsphinx) on the output at most 15 points above the base voice's.
 *
 * The figures are printed ([clone-acceptance] lines) and recorded in docs/voice-cloning.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { transcribe } from '../src/asr/transcribe.js'
import { wer } from '../src/asr/wer.js'
import type { AudioBuffer } from '../src/audio/types.js'
import { timbreDistance } from '../src/audio/dsp/timbre-compare.js'
import { toTtsParams } from '../src/api/fish/tts-params.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import { builtinModelId } from '../src/voices/builtin.js'
import { PASSAGES } from './support/voice-speech.js'
import type { VoiceProfile } from '../src/voices/types.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { decodeWav, pct, shiftedReference, shiftedSpeech, ttsMsgpack } from './helpers/clone.js'

const TEXT = `${PASSAGES.b} ${PASSAGES.c}`
const CASES = [
  { semitones: 4, timeRatio: 0.85 },
  { semitones: 4, timeRatio: 1.2 },
  { semitones: -5, timeRatio: 0.85 },
  { semitones: -5, timeRatio: 1.2 },
] as const

interface Measured {
  readonly profile: VoiceProfile
  readonly wer: number
}

describe('voice cloning acceptance: shifted slt speakers through POST /v1/tts', () => {
  let s: TestServer
  let base: Measured
  let baseModelId = ''
  const measure = async (audio: AudioBuffer): Promise<Measured> => {
    const profile = await analyzeVoice(audio.samples, audio.sampleRate, { transcript: TEXT })
    const heard = await transcribe(s.deps.asr.engine, audio, { language: 'en', timestamps: false })
    return { profile, wer: wer(TEXT, heard.text).wer }
  }
  const speak = async (body: Record<string, unknown>) => {
    const res = await ttsMsgpack(s, { text: TEXT, ...body })
    expect(res.status).toBe(200)
    return decodeWav(res.bytes)
  }

  beforeAll(async () => {
    s = await startTestServer()
    // The base voice the resolver picks for these speakers (all are slt underneath).
    const first = await shiftedReference(CASES[0].semitones, CASES[0].timeRatio)
    const params = toTtsParams({ text: TEXT, references: [{ audio: first.wav, text: first.text }] } as never, undefined, s.deps.config)
    const voice = (await s.deps.speech.resolveVoices(params, { accountId: s.aliceAccount, keyId: '' }, [{ speaker: 0, language: 'en' }]))(0, 'en')
    baseModelId = builtinModelId(voice.engine.id, voice.voiceId)
    base = await measure(await speak({ reference_id: baseModelId }))
    console.log(`[clone-acceptance] base voice ${baseModelId}: F0 ${base.profile.f0.medianHz} Hz, rate ${base.profile.rate.syllablesPerSec} syl/s, WER ${(100 * base.wer).toFixed(1)} %`)
  })
  afterAll(async () => s.close())

  for (const c of CASES) {
    const name = `slt ${c.semitones > 0 ? '+' : ''}${c.semitones} st, tempo ×${c.timeRatio}`
    it(`${name}: F0 within 5 %, rate within 10 %, timbre closer than the base voice, WER ≤ base + 15 points`, async () => {
      const ref = await shiftedReference(c.semitones, c.timeRatio)
      const target = await analyzeVoice(ref.audio.samples, ref.audio.sampleRate, { transcript: ref.text })
      const cloned = await measure(await speak({ references: [{ audio: ref.wav, text: ref.text }] }))
      const f0 = pct(cloned.profile.f0.medianHz, target.f0.medianHz)
      const rate = pct(cloned.profile.rate.syllablesPerSec, target.rate.syllablesPerSec)
      const timbreBase = timbreDistance(base.profile.timbre, target.timbre)
      const timbreCloned = timbreDistance(cloned.profile.timbre, target.timbre)
      const sameText = await shiftedSpeech(c.semitones, c.timeRatio, TEXT)
      const speaker = (await analyzeVoice(sameText.audio.samples, sameText.audio.sampleRate, { transcript: TEXT })).timbre
      const [speakerBase, speakerCloned] = [timbreDistance(base.profile.timbre, speaker), timbreDistance(cloned.profile.timbre, speaker)]
      const werPoints = 100 * (cloned.wer - base.wer)
      console.log(
        `[clone-acceptance] ${name}: F0 ${cloned.profile.f0.medianHz} vs ${target.f0.medianHz} Hz (${f0.toFixed(1)} %), ` +
          `rate ${cloned.profile.rate.syllablesPerSec} vs ${target.rate.syllablesPerSec} syl/s (${rate.toFixed(1)} %), ` +
          `timbre distance to the clip ${timbreBase.toFixed(2)} dB (${baseModelId}) -> ${timbreCloned.toFixed(2)} dB (cloned), ` +
          `to the speaker on the same text ${speakerBase.toFixed(2)} -> ${speakerCloned.toFixed(2)} dB, ` +
          `WER ${(100 * cloned.wer).toFixed(1)} % (base ${(100 * base.wer).toFixed(1)} %, ${werPoints >= 0 ? '+' : ''}${werPoints.toFixed(1)} points)`,
      )
      expect(Math.abs(f0)).toBeLessThan(5)
      expect(Math.abs(rate)).toBeLessThan(10)
      expect(timbreCloned).toBeLessThan(timbreBase)
      expect(speakerCloned).toBeLessThan(speakerBase / 2)
      expect(werPoints).toBeLessThanOrEqual(15)
    })
  }
})
