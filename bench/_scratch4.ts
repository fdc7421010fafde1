import { encode } from '@msgpack/msgpack'
import { startTestServer } from '../test/helpers/app.js'
import { speech, PASSAGES, parseWav, saveWav } from '../src/voices/test-speech.js'
import { stretchAndShift } from '../src/audio/dsp/rubberband.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import { timbreDistance } from '../src/audio/dsp/timbre-compare.js'
import { wavBytes } from '../test/helpers/voice-audio.js'

const s = await startTestServer()
const TEXT = PASSAGES.b + ' ' + PASSAGES.c
const tts = async (body: object) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ text: TEXT, format: 'wav', ...body })) })
  if (res.statusCode !== 200) throw new Error(res.body)
  return parseWav(new Uint8Array(res.rawPayload))
}
const ref = await speech(PASSAGES.a)
const base = await tts({})
const bp = await analyzeVoice(base.samples, base.sampleRate, { transcript: TEXT })
console.log('base rate', base.sampleRate, 'F0', bp.f0.medianHz)
for (const [st, tr] of [[4, 0.85], [-5, 0.85]] as const) {
  const refAudio = await stretchAndShift(ref.samples, ref.sampleRate, { pitchScale: 2 ** (st / 12), timeRatio: tr })
  const rp = await analyzeVoice(refAudio, ref.sampleRate, { transcript: PASSAGES.a })
  for (const norm of [true, false]) {
    const out = await tts({ references: [{ audio: wavBytes(refAudio, ref.sampleRate), text: PASSAGES.a }], prosody: { normalize_loudness: norm } })
    const m = await analyzeVoice(out.samples, out.sampleRate, { transcript: TEXT })
    await saveWav(`/tmp/scratch/out_${st}_${tr}_${norm}.wav`, out.samples, out.sampleRate)
    console.log(`${st} x${tr} norm ${norm}: F0 ${m.f0.medianHz} vs ${rp.f0.medianHz}, rate ${m.rate.syllablesPerSec} vs ${rp.rate.syllablesPerSec}, timbre base ${timbreDistance(bp.timbre, rp.timbre).toFixed(2)} adapted ${timbreDistance(m.timbre, rp.timbre).toFixed(2)} peak ${m.loudness.peakDbfs} clip ${m.quality.clippingRatio}`)
  }
}
await s.close()
