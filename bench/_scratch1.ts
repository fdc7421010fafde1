import { encode } from '@msgpack/msgpack'
import { startTestServer } from '../test/helpers/app.js'
import { speech, PASSAGES, parseWav } from '../src/voices/test-speech.js'
import { stretchAndShift } from '../src/audio/dsp/rubberband.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import { timbreDistance } from '../src/audio/dsp/timbre-compare.js'
import { wavBytes } from '../test/helpers/voice-audio.js'
import { createPocketsphinxEngine } from '../src/engines/asr/pocketsphinx/index.js'
import { transcribe } from '../src/asr/transcribe.js'
import { wer } from '../src/asr/wer.js'

const s = await startTestServer()
const asr = createPocketsphinxEngine({ workers: 2 })
const TEXT = PASSAGES.b
const tts = async (body: object) => {
  const t0 = performance.now()
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ text: TEXT, format: 'wav', ...body })) })
  if (res.statusCode !== 200) throw new Error(res.body)
  return { audio: parseWav(new Uint8Array(res.rawPayload)), ms: performance.now() - t0 }
}
const measure = async (a: { samples: Float32Array; sampleRate: number }, text: string) => {
  const p = await analyzeVoice(a.samples, a.sampleRate, { transcript: text })
  const tr = await transcribe(asr, a, { language: 'en', timestamps: false })
  return { p, wer: wer(text, tr.text).wer, hyp: tr.text }
}
const ref = await speech(PASSAGES.a)
const base = await tts({})
const bm = await measure(base.audio, TEXT)
console.log('base', base.ms.toFixed(0), 'ms F0', bm.p.f0.medianHz, 'rate', bm.p.rate.syllablesPerSec, 'wer', bm.wer.toFixed(3))
for (const [st, tr] of [[4, 0.85], [4, 1.2], [-5, 0.85], [-5, 1.2]] as const) {
  const refAudio = await stretchAndShift(ref.samples, ref.sampleRate, { pitchScale: 2 ** (st / 12), timeRatio: tr })
  const rp = await analyzeVoice(refAudio, ref.sampleRate, { transcript: PASSAGES.a })
  const out = await tts({ references: [{ audio: wavBytes(refAudio, ref.sampleRate), text: PASSAGES.a }] })
  const m = await measure(out.audio, TEXT)
  const pct = (a: number, b: number) => (100 * (a / b - 1)).toFixed(1)
  console.log(`${st} st x${tr}: ${out.ms.toFixed(0)} ms F0 ${m.p.f0.medianHz} vs ${rp.f0.medianHz} (${pct(m.p.f0.medianHz, rp.f0.medianHz)}%) rate ${m.p.rate.syllablesPerSec} vs ${rp.rate.syllablesPerSec} (${pct(m.p.rate.syllablesPerSec, rp.rate.syllablesPerSec)}%) timbre base ${timbreDistance(bm.p.timbre, rp.timbre).toFixed(2)} adapted ${timbreDistance(m.p.timbre, rp.timbre).toFixed(2)} wer ${m.wer.toFixed(3)}`)
  console.log('   hyp:', m.hyp)
}
await asr.close()
await s.close()
