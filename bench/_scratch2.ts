import { startTestServer } from '../test/helpers/app.js'
import { speech, PASSAGES } from '../src/voices/test-speech.js'
import { stretchAndShift } from '../src/audio/dsp/rubberband.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import { timbreDistance } from '../src/audio/dsp/timbre-compare.js'
import { createBaseProfiles, ENGLISH_BASES } from '../src/voices/base-profiles.js'
import { chooseBaseVoice, planAdaptation } from '../src/voices/adaptation.js'

const s = await startTestServer()
const catalog = s.deps.speech.catalog
const bp = createBaseProfiles(catalog)
const cands = []
for (const id of ENGLISH_BASES) {
  const f = (await catalog.find(id))!
  const p = await bp.get(id)
  cands.push({ id, languages: f.voice.languages, profile: p, caps: f.engine.capabilities })
  console.log(id, 'F0', p.f0.medianHz, 'rate', p.rate.syllablesPerSec, 'rms', p.loudness.rmsDbfs, 'caps', JSON.stringify(f.engine.capabilities), f.voice.pitch)
}
const ref = await speech(PASSAGES.a)
for (const [st, tr] of [[4, 0.85], [4, 1.2], [-5, 0.85], [-5, 1.2]] as const) {
  const refAudio = await stretchAndShift(ref.samples, ref.sampleRate, { pitchScale: 2 ** (st / 12), timeRatio: tr })
  const rp = await analyzeVoice(refAudio, ref.sampleRate, { transcript: PASSAGES.a })
  const ch = chooseBaseVoice(rp, cands, 'en')!
  const all = cands.map((c) => `${c.id}: ${(12 * Math.log2(rp.f0.medianHz / c.profile.f0.medianHz)).toFixed(1)}st ${timbreDistance(rp.timbre, c.profile.timbre).toFixed(2)}dB`).join(' | ')
  const plan = planAdaptation(rp, ch.candidate.profile, { pitch: false, rate: ch.candidate.caps.rate })
  console.log(`${st} x${tr}: chose ${ch.candidate.id} score ${ch.score.toFixed(2)} plan ${plan.pitchSemitones}st rate ${plan.rate} formant ${plan.formantScale}\n   ${all}`)
}
await s.close()
