import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { corpusWer } from '../src/asr/wer.js'
import { startTestServer } from './helpers/app.js'
import {
  arrange, SENTENCES, segmentProblems, ttsAll, withPauses, type Arranged, type Segment,
} from './helpers/asr-audio.js'

/** `parla transcribe FILE`: longer than one request may be, cut into pieces, offsets added. */
const BIN = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
// Sentences the recognizer gets (nearly) right: these tests are about times and pieces, not accuracy.
const TEXTS = [SENTENCES[3], SENTENCES[10], SENTENCES[14], SENTENCES[16], SENTENCES[18], SENTENCES[21]]

/** Each CLI run starts Node, tsx and a decoder per core before transcribing; generous for busy machines. */
const SLOW = 180_000

interface CliResult {
  code: number
  stdout: string
  stderr: string
}

function parla(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let dir: string
/** 11 minutes at 16 kHz: speech at 0:02 and 5:00, one sentence across 10:00, two after it; zeros elsewhere. */
let long: Arranged
/** Six sentences with 1.5–2.5 s pauses, about 30 s. */
let short: Arranged

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-cli-'))
  const s = await startTestServer()
  let clips
  try {
    clips = await ttsAll(s, TEXTS, 16_000)
  } finally {
    await s.close()
  }
  long = arrange(clips.slice(0, 5), TEXTS.slice(0, 5), [2, 300, 598.6, 630, 655], 660)
  short = withPauses(clips, TEXTS)
  await writeFile(join(dir, 'long.wav'), toWav(long.samples, long.sampleRate))
  await writeFile(join(dir, 'short.wav'), toWav(short.samples, short.sampleRate))
}, SLOW)

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('parla transcribe', { timeout: SLOW }, () => {
  it('an 11-minute file: segments after 10:00 carry their offset, the sentence across 10:00 stays whole', async () => {
    const run = await parla('transcribe', join(dir, 'long.wav'), '--json', '--workers', '2')
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout) as { text: string, duration: number, segments: Segment[] }
    expect(result.duration).toBe(660)
    expect(segmentProblems(result.segments, long.truth)).toEqual([])
    expect(result.segments.filter((x) => x.start > 600).length).toBeGreaterThanOrEqual(2)
    // "We need to finish this report before the end of the week." is at 10:30.
    const at1030 = long.truth[3]!
    const late = result.segments.filter((x) => x.start >= at1030.start - 0.3 && x.end <= at1030.end + 0.3)
    expect(late.map((x) => x.text).join(' ').toLowerCase()).toContain('end of the week')
    expect(late[0]!.start).toBeGreaterThan(630)
    const pooled = corpusWer([{ reference: TEXTS.slice(0, 5).join(' '), hypothesis: result.text }])
    expect(pooled.wer, result.text).toBeLessThanOrEqual(0.15)
  })

  it('--piece-seconds 8 cuts a 30 s file at pauses: every sentence whole, on its time', async () => {
    const run = await parla('transcribe', join(dir, 'short.wav'), '--json', '--workers', '2', '--piece-seconds', '8')
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout) as { text: string, duration: number, segments: Segment[] }
    expect(Math.abs(result.duration - short.samples.length / short.sampleRate)).toBeLessThan(0.001)
    expect(segmentProblems(result.segments, short.truth)).toEqual([])
    const pooled = corpusWer([{ reference: TEXTS.join(' '), hypothesis: result.text }])
    expect(pooled.wer, result.text).toBeLessThanOrEqual(0.15)
    // Plain output is the same text on one line.
    const plain = await parla('transcribe', join(dir, 'short.wav'), '--workers', '2', '--piece-seconds', '8')
    expect(plain).toEqual({ code: 0, stdout: `${result.text}\n`, stderr: '' })
  })

  it('fails with a message for a file that is not audio, a missing file and a bad --piece-seconds', async () => {
    await writeFile(join(dir, 'notes.txt'), 'shopping list: milk, bread')
    expect(await parla('transcribe', join(dir, 'notes.txt'))).toEqual({
      code: 1,
      stdout: '',
      stderr: "parla: file 'notes.txt' is not audio: it looks like plain text; send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A\n",
    })
    expect(await parla('transcribe', join(dir, 'missing.wav'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `parla: cannot read ${join(dir, 'missing.wav')} (ENOENT)\n`,
    })
    expect(await parla('transcribe', join(dir, 'short.wav'), '--piece-seconds', 'two')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'parla: --piece-seconds must be a number of seconds from 5 to 3600\n',
    })
  })
})
