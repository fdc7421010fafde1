/**
 * Voice-model training (issue 6): states, the stored profile, per-sample quality reasons, train_mode fast
 * and full, enhance_audio_quality, ASR-filled transcripts, and speaking with the trained model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { analyzeVoice } from '../src/voices/analysis.js'
import type { TrainingStep } from '../src/services/models/training.js'
import { PASSAGES } from './support/voice-speech.js'
import type { VoiceProfile } from '../src/voices/types.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { decodeWav, pct, shiftedReference, ttsMsgpack, type Reference } from './helpers/clone.js'
import { createModel, getJson, waitForTraining } from './helpers/models.js'
import { voiceSamples, voiceWav, wavBytes } from './helpers/voice-audio.js'

/** Holds every training job in the step until `release()`, so the `training` state can be observed. */
function gate() {
  let open!: () => void
  let entered!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const reached = new Promise<void>((resolve) => (entered = resolve))
  let closed = true
  const step: TrainingStep = {
    name: 'test-gate',
    async run() {
      entered()
      if (closed) await opened
    },
  }
  return { step, reached, release: () => ((closed = false), open()) }
}

const random = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff - 0.5)

/** Speech with steady white noise under it: passes the level check, fails the analysis SNR unless enhanced. */
function noisy(ref: Reference, amplitude = 0.015): Uint8Array {
  const rnd = random(7)
  return wavBytes(ref.audio.samples.map((v) => v * 0.5 + amplitude * 2 * rnd()), ref.audio.sampleRate)
}

describe('voice model training', () => {
  let s: TestServer
  let held: ReturnType<typeof gate>
  let speaker: Reference
  let speakerProfile: VoiceProfile
  const model = async (id: string) => (await s.deps.models.repo.findById(id))!

  beforeAll(async () => {
    held = gate()
    s = await startTestServer({}, { training: { extraSteps: [held.step] } })
    speaker = await shiftedReference(-5, 1.2)
    speakerProfile = await analyzeVoice(speaker.audio.samples, speaker.audio.sampleRate, { transcript: speaker.text })
  })
  afterAll(async () => s.close())

  it('created → training → trained: the profile is stored, with its source, and the model speaks like it', async () => {
    const created = await createModel(s, s.asAlice, { title: 'Low voice', voices: [speaker.wav], texts: [speaker.text] })
    expect(created.state).toBe('created')
    await held.reached
    expect((await getJson(s, s.asAlice, `/model/${created._id}`)).body.state).toBe('training')
    held.release()
    const trained = await waitForTraining(s, s.asAlice, created._id)
    expect(trained).toMatchObject({ state: 'trained', state_reason: '', languages: ['en'] })
    expect(trained.quality.audios).toEqual([
      expect.objectContaining({ duration_ms: Math.round(speaker.audio.samples.length / 16), language: 'en', quality_passed: true, quality_reason: '' }),
    ])
    const profile = (await model(created._id)).profile as VoiceProfile
    expect(Math.abs(pct(profile.f0.medianHz, speakerProfile.f0.medianHz))).toBeLessThan(3)
    expect(profile.rate.method).toBe('transcript')
    expect(profile.sources).toEqual([
      { key: `models/${created._id}/voice-0.enhanced.wav`, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), text: speaker.text, durationSec: expect.any(Number) },
    ])

    const res = await ttsMsgpack(s, { text: 'This is my trained voice speaking a new sentence for you.', reference_id: created._id })
    expect(res.status).toBe(200)
    const out = decodeWav(res.bytes)
    const spoken = await analyzeVoice(out.samples, out.sampleRate)
    console.log(`[training] trained voice: F0 ${spoken.f0.medianHz} Hz, profile ${profile.f0.medianHz} Hz`)
    expect(Math.abs(pct(spoken.f0.medianHz, profile.f0.medianHz))).toBeLessThan(5)
  })

  it('reports each sample: too short, clipped, no speech found; fails the model when none passes', async () => {
    const short = new Float32Array(16000 * 1.6)
    short.set(voiceSamples({ seconds: 0.6 }), 4000)
    const rnd = random(3)
    // Noise bursts with silence between: loud and "syllabic", but nothing voiced.
    const bursts = Float32Array.from({ length: 16000 * 3 }, (_, i) => ((i / 16000) % 0.5 < 0.25 ? 0.6 * rnd() : 0))
    const created = await createModel(s, s.asAlice, {
      voices: [wavBytes(short), voiceWav({ seconds: 2, amplitude: 1.6 }), wavBytes(bursts)],
      texts: ['Hello.', 'A clipped sample.', 'Some noise.'],
    })
    const m = await waitForTraining(s, s.asAlice, created._id)
    const [tooShort, clipped, noSpeech] = m.quality.audios
    expect(tooShort).toMatchObject({ duration_ms: 1600, quality_passed: false, quality_reason: expect.stringMatching(/^too short: 0\.\d s of speech, need at least 1 s$/) })
    expect(clipped).toMatchObject({ quality_passed: false, quality_reason: expect.stringMatching(/^clipped: /) })
    expect(noSpeech).toMatchObject({ quality_passed: false, quality_reason: 'no speech found: the voice-activity detector found no voiced speech in the sample' })
    expect(m.state).toBe('failed')
    expect(m.state_reason).toMatch(/^No voice sample passed the quality check \(voice-0\.wav: too short: .*; voice-2\.wav: no speech found: .*\); upload a clear recording of one speaker$/)
    expect((await model(created._id)).profile).toBeNull()
    expect((await ttsMsgpack(s, { text: 'Hi.', reference_id: created._id })).status).toBe(409)
  })

  it('enhance_audio_quality: a noisy sample is too noisy as recorded and passes once denoised; the upload is kept', async () => {
    const wav = noisy(speaker)
    const plain = await createModel(s, s.asAlice, { voices: [wav], texts: [speaker.text], enhance_audio_quality: false } as never)
    const enhanced = await createModel(s, s.asAlice, { voices: [wav], texts: [speaker.text] })
    const [p, e] = [await waitForTraining(s, s.asAlice, plain._id), await waitForTraining(s, s.asAlice, enhanced._id)]
    expect(p.state).toBe('failed')
    expect(p.quality.audios[0].quality_reason).toMatch(/^too noisy: speech is \d+ dB above the background, need 15 dB$/)
    expect(await s.deps.blobs.list(`models/${plain._id}/`)).toEqual([`models/${plain._id}/voice-0.wav`])
    expect(e.state).toBe('trained')
    expect(e.quality.audios[0]).toMatchObject({ quality_passed: true, quality_reason: '' })
    // The original is what GET serves; the enhanced copy sits next to it and is what was analysed.
    const served = await s.app.inject({ method: 'GET', url: `/model/${enhanced._id}/samples/0`, headers: s.asAlice })
    expect(Buffer.compare(served.rawPayload, Buffer.from(wav))).toBe(0)
    const copyKey = `models/${enhanced._id}/voice-0.enhanced.wav`
    expect((await s.deps.blobs.list(`models/${enhanced._id}/`)).sort()).toEqual([copyKey, `models/${enhanced._id}/voice-0.wav`])
    const copy = decodeWav((await s.deps.blobs.get(copyKey))!)
    const before = await analyzeVoice(decodeWav(wav).samples, 16000, { transcript: speaker.text })
    const after = await analyzeVoice(copy.samples, copy.sampleRate, { transcript: speaker.text })
    console.log(`[training] enhance: SNR ${before.quality.snrDb} -> ${after.quality.snrDb} dB, speech level ${before.loudness.rmsDbfs} -> ${after.loudness.rmsDbfs} dBFS`)
    expect(after.quality.snrDb - before.quality.snrDb).toBeGreaterThan(8)
    expect(Math.abs(after.loudness.rmsDbfs - -20)).toBeLessThan(3)
    expect(Math.abs(pct(after.f0.medianHz, speakerProfile.f0.medianHz))).toBeLessThan(3)
    expect(((await model(enhanced._id)).profile as VoiceProfile).sources[0]!.key).toBe(copyKey)
    // Deleting the model removes the copy too.
    await s.app.inject({ method: 'DELETE', url: `/model/${enhanced._id}`, headers: s.asAlice })
    expect(await s.deps.blobs.list(`models/${enhanced._id}/`)).toEqual([])
  })

  it('train_mode full merges the passing samples and leaves an outlier out; fast takes the best sample', async () => {
    const other = await shiftedReference(-5, 1.2, 'b')
    const outlier = await shiftedReference(7, 1, 'c')
    const voices = [speaker.wav, other.wav, outlier.wav]
    const texts = [speaker.text, other.text, outlier.text]
    const full = await createModel(s, s.asAlice, { voices, texts, train_mode: 'full' } as never)
    const fast = await createModel(s, s.asAlice, { voices, texts })
    const f = await waitForTraining(s, s.asAlice, full._id)
    expect(f.state).toBe('trained')
    expect(f.quality.audios.map((a: any) => a.quality_passed)).toEqual([true, true, false])
    expect(f.quality.audios[2].quality_reason).toMatch(/^outlier: F0 \d+ Hz and [\d.]+ syllables\/s are far from the other samples/)
    const merged = (await model(full._id)).profile as VoiceProfile
    expect(merged.sources.map((x) => x.key)).toEqual([0, 1].map((i) => `models/${full._id}/voice-${i}.enhanced.wav`))
    expect(Math.abs(pct(merged.f0.medianHz, speakerProfile.f0.medianHz))).toBeLessThan(3)
    expect(merged.speechSec).toBeGreaterThan(speakerProfile.speechSec * 1.5)

    const q = await waitForTraining(s, s.asAlice, fast._id)
    expect(q.quality.audios.map((a: any) => a.quality_passed)).toEqual([true, true, true])
    const best = (await model(fast._id)).profile as VoiceProfile
    expect(best.sources).toHaveLength(1)
  })

  it('texts are optional: ASR fills the transcript for English speech and the rate counts its syllables', async () => {
    const created = await createModel(s, s.asAlice, { voices: [speaker.wav] })
    expect(created.samples[0].text).toBe('')
    const m = await waitForTraining(s, s.asAlice, created._id)
    expect(m.state).toBe('trained')
    const heard = m.samples[0].text as string
    console.log(`[training] ASR transcript: "${heard}" (WER ${(100 * wer(PASSAGES.a, heard).wer).toFixed(0)} %)`)
    expect(wer(PASSAGES.a, heard).wer).toBeLessThan(0.5)
    expect(m.quality.audios[0].language).toBe('en')
    expect(m.languages).toEqual(['en'])
    const profile = (await model(created._id)).profile as VoiceProfile
    expect(profile.rate.method).toBe('transcript')
    expect(Math.abs(pct(profile.rate.syllablesPerSec, speakerProfile.rate.syllablesPerSec))).toBeLessThan(15)
  })
})
