import { createEngineSet } from '../src/services/tts/engines.js'
import { speech, PASSAGES } from '../src/voices/test-speech.js'
import { stretchAndShift } from '../src/audio/dsp/rubberband.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import { timbreDistance } from '../src/audio/dsp/timbre-compare.js'
import { concatSamples } from '../src/audio/signal.js'
import { createPocketsphinxEngine } from '../src/engines/asr/pocketsphinx/index.js'
import { transcribe } from '../src/asr/transcribe.js'
import { wer } from '../src/asr/wer.js'

const engines = createEngineSet({ festivalProcesses: 2 })
const fest = await engines.get('festival')
const asr = createPocketsphinxEngine({ workers: 2 })
const TEXT = PASSAGES.b + ' ' + PASSAGES.c
const sentences = TEXT.split(/(?<=\.)\s+/)
const rate = fest.sampleRate
async function synth(nativeRate: number, dsp: { pitchScale: number; timeRatio: number } | null) {
  const parts: Float32Array[] = []
  for (const s of sentences) {
    const pieces: Float32Array[] = []
    for await (const p of fest.synthesize({ text: s, voice: 'slt', ...(nativeRate !== 1 && { rate: nativeRate }) })) pieces.push(p.samples)
    let x = concatSamples(pieces)
    if (dsp) x = await stretchAndShift(x, rate, dsp)
    parts.push(x, new Float32Array(Math.round(rate * 0.3)))
  }
  return concatSamples(parts)
}
const measure = async (x: Float32Array, text: string) => {
  const p = await analyzeVoice(x, rate, { transcript: text })
  const tr = await transcribe(asr, { samples: x, sampleRate: rate }, { language: 'en', timestamps: false })
  return { p, wer: wer(text, tr.text).wer }
}
const base = await synth(1, null)
const bm = await measure(base, TEXT)
const baseProfile = bm.p
console.log('base F0', bm.p.f0.medianHz, 'rate', bm.p.rate.syllablesPerSec, 'wer', bm.wer.toFixed(3))
const ref = await speech(PASSAGES.a)
const pct = (a: number, b: number) => (100 * (a / b - 1)).toFixed(1)
for (const [st, tr] of [[4, 0.85], [4, 1.2], [-5, 0.85], [-5, 1.2]] as const) {
  const refAudio = await stretchAndShift(ref.samples, ref.sampleRate, { pitchScale: 2 ** (st / 12), timeRatio: tr })
  const rm = await measure(refAudio, PASSAGES.a)
  const rp = rm.p
  const semis = 12 * Math.log2(rp.f0.medianHz / baseProfile.f0.medianHz)
  const r = rp.rate.syllablesPerSec / baseProfile.rate.syllablesPerSec
  console.log(`ref ${st} x${tr}: F0 ${rp.f0.medianHz} rate ${rp.rate.syllablesPerSec} refWER ${rm.wer.toFixed(3)} plan ${semis.toFixed(2)} st rate ${r.toFixed(3)}; base timbre ${timbreDistance(baseProfile.timbre, rp.timbre).toFixed(2)}`)
  for (const v of ['native', 'dsp'] as const) {
    const x = v === 'native' ? await synth(r, { pitchScale: 2 ** (semis / 12), timeRatio: 1 }) : await synth(1, { pitchScale: 2 ** (semis / 12), timeRatio: 1 / r })
    const m = await measure(x, TEXT)
    console.log(`   ${v}: F0 ${pct(m.p.f0.medianHz, rp.f0.medianHz)}% rate ${pct(m.p.rate.syllablesPerSec, rp.rate.syllablesPerSec)}% timbre ${timbreDistance(m.p.timbre, rp.timbre).toFixed(2)} wer ${m.wer.toFixed(3)}`)
  }
}
await asr.close(); await engines.close()
