import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ffmpegDecode } from './support/audio.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { findSilences, parseSse, rebuild, type Rebuilt, type Segment } from './helpers/sse.js'

/**
 * Word times checked against the audio itself. The text has clear pauses (sentence ends, commas, [pause]
 * tags, chunk joins); silences are found by energy in the decoded audio, and the words on both sides of each
 * silence must end and start within 30 ms of its edges. Words at the pauses begin and end in vowels or
 * sonorants, whose energy edges are sharp: a word ending in a slowly fading consonant ("mill") would measure
 * the fade, not the timing.
 */
const TEXT = 'Anna, I see you. [pause] Are you Amy? I saw a bee, and we saw Leo. [pause] Oh, away we go! We are here, Amy. Okay.'
const TOLERANCE = 0.03
const ANALYSIS_RATE = 16000

interface Check {
  readonly where: string
  readonly error: number
}

/** Boundary errors (s) of the words around every silence; fails when a silence falls inside a word. */
function boundaryErrors(words: readonly Segment[], audio: Float32Array, rate: number): Check[] {
  const silences = findSilences(audio, rate)
  const checks: Check[] = []
  const duration = audio.length / rate
  for (const sil of silences) {
    const before = words.filter((w) => w.start < sil.start).at(-1)
    const after = words.find((w) => w.start >= sil.start)
    // A word running through a silence would have times off by at least the silence.
    if (before && before.end > sil.end + TOLERANCE) {
      checks.push({ where: `"${before.text}" runs through silence ${sil.start.toFixed(3)}-${sil.end.toFixed(3)}`, error: Infinity })
    } else if (before) checks.push({ where: `end of "${before.text}"`, error: before.end - sil.start })
    if (after && sil.end < duration) checks.push({ where: `start of "${after.text}"`, error: after.start - sil.end })
  }
  // And every pause in the timing that is long enough is mostly silence in the audio.
  for (let i = 1; i < words.length; i++) {
    const [a, b] = [words[i - 1]!, words[i]!]
    if (b.start - a.end < 0.15) continue
    const covered = silences.reduce((sum, s) => sum + Math.max(0, Math.min(s.end, b.start) - Math.max(s.start, a.end)), 0)
    if (covered < (b.start - a.end) / 2) checks.push({ where: `gap "${a.text}" … "${b.text}" is not silent`, error: Infinity })
  }
  return checks
}

describe('SSE word timing against the audio', () => {
  let s: TestServer
  const stream = async (body: object): Promise<Rebuilt & { decoded: Float32Array }> => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/v1/tts/stream/with-timestamp',
      headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { format: 'wav', chunk_length: 100, latency: 'balanced', ...body },
    })
    expect(res.statusCode).toBe(200)
    const rebuilt = rebuild(parseSse(res.body))
    return { ...rebuilt, decoded: await ffmpegDecode(rebuilt.audio, [], ANALYSIS_RATE) }
  }
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => s.close())

  it.each([
    ['festival, 44.1 kHz wav (32 kHz engine resampled)', {}],
    ['festival at speed 0.6', { prosody: { speed: 0.6 } }],
    ['festival at speed 1.8', { prosody: { speed: 1.8 } }],
    ['festival, 16 kHz wav', { sample_rate: 16000 }],
    ['festival, mp3 (encoder priming in the offsets)', { format: 'mp3' }],
    ['eSpeak NG (22.05 kHz engine)', { reference_id: 'espeak-ng-en-us' }],
    ['eSpeak NG at speed 1.5', { reference_id: 'espeak-ng-en-us', prosody: { speed: 1.5 } }],
  ])('%s: word boundaries at pauses are within 30 ms of the silences', async (_, body) => {
    const { words, chunks, decoded } = await stream({ text: TEXT, ...body })
    expect(chunks.size).toBeGreaterThanOrEqual(2)
    expect(words.map((w) => w.text)).toEqual(TEXT.replace(/\[pause\]/g, '').split(/\s+/).filter(Boolean).map((w) => w.replace(/[.,!?]$/, '')))
    const checks = boundaryErrors(words, decoded, ANALYSIS_RATE)
    // The pauses: two [pause] tags, three sentence ends and four commas (chunk joins among them), and both
    // ends; at high speed the shortest pauses fall under the 80 ms a silence needs.
    expect(checks.length).toBeGreaterThanOrEqual(10)
    const bad = checks.filter((c) => !(Math.abs(c.error) <= TOLERANCE))
    expect(bad.map((c) => `${c.where}: ${(c.error * 1000).toFixed(0)} ms`)).toEqual([])
  })

  it('speed changes the timeline and the audio alike', async () => {
    const slow = await stream({ text: TEXT, prosody: { speed: 0.6 } })
    const fast = await stream({ text: TEXT, prosody: { speed: 1.8 } })
    const ratio = (r: typeof slow) => r.words.at(-1)!.end / (r.decoded.length / ANALYSIS_RATE)
    // The last word ends near the end of the audio at both speeds, and the slow audio is about 3 times longer.
    expect(ratio(slow)).toBeGreaterThan(0.9)
    expect(ratio(fast)).toBeGreaterThan(0.9)
    expect(slow.decoded.length / fast.decoded.length).toBeGreaterThan(2.2)
  })

  it('with several chunks, each chunk starts where the previous one ends and the last ends with the audio', async () => {
    const text = Array.from({ length: 8 }, (_, i) => `Sentence number ${i + 1} is a short one, with a comma.`).join(' ')
    for (const body of [{ format: 'wav' }, { format: 'opus' }, { format: 'mp3', sample_rate: 22050 }]) {
      const { chunks, decoded, words } = await stream({ text, ...body })
      expect(chunks.size).toBeGreaterThanOrEqual(4)
      const list = [...chunks.entries()]
      list.forEach(([seq], i) => expect(seq).toBe(i))
      for (let i = 1; i < list.length; i++) {
        const [prev, next] = [list[i - 1]![1], list[i]![1]]
        expect(Math.abs(next.offset - (prev.offset + prev.alignment.audio_duration))).toBeLessThan(2e-6)
      }
      const last = list.at(-1)![1]
      const end = last.offset + last.alignment.audio_duration
      const decodedSec = decoded.length / ANALYSIS_RATE
      if (body.format === 'mp3') {
        // Decoders keep the padding of the last frame (up to 1152 samples at 22.05 kHz).
        expect(decodedSec - end).toBeGreaterThanOrEqual(-0.002)
        expect(decodedSec - end).toBeLessThan(1152 / 22050 + 0.002)
      } else expect(Math.abs(decodedSec - end)).toBeLessThan(0.002)
      expect(words.length).toBe(8 * 10)
      // Every segment lies inside its chunk.
      for (const c of chunks.values()) for (const w of c.alignment.segments) expect(w.end).toBeLessThanOrEqual(c.alignment.audio_duration)
    }
  })

  it('"$5" is one segment spanning "five dollars"; tags are never segments', async () => {
    const spoken = await stream({ text: 'It costs $5 now.', normalize: true })
    const written = await stream({ text: 'It costs five dollars now.', normalize: true })
    expect(spoken.words.map((w) => w.text)).toEqual(['It', 'costs', '$5', 'now'])
    const dollar = spoken.words[2]!
    const [five, dollars] = [written.words[2]!, written.words[3]!]
    // The same audio span as the two spoken words, give or take the engine's run-to-run variation.
    expect(Math.abs(dollar.end - dollar.start - (dollars.end - five.start))).toBeLessThan(0.06)
    const tagged = await stream({ text: '[excited] Hi (laughing) there [pause] friend [whispering] bye.' })
    expect(tagged.words.map((w) => w.text)).toEqual(['Hi', 'there', 'friend', 'bye'])
  })
})
