import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { FishAudioClient, RealtimeEvents } from 'fish-audio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ffmpegDecode } from './support/audio.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { wavBytes } from './helpers/voice-audio.js'

const run = promisify(execFile)
const TEXT = 'Hello world, this is a test of the live socket. The weather is nice today.'

/** Text as an LLM would stream it: word by word, a little apart. */
async function* words(text: string): AsyncGenerator<string> {
  for (const w of text.split(' ')) {
    await new Promise((r) => setTimeout(r, 5))
    yield `${w} `
  }
}

/** Runs an SDK call in its own process (`helpers/sdk-live-child.ts`), as a real client runs. */
async function inChild(sdk: 'fish-audio' | 'fish-audio-sdk', url: string, key: string, text: string, gapMs: number) {
  const child = fileURLToPath(new URL('./helpers/sdk-live-child.ts', import.meta.url))
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, sdk, url, key, text, String(gapMs)], { maxBuffer: 64 << 20 })
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { audio: string; chunks: number; error?: string }
  return { ...out, audio: Buffer.from(out.audio, 'base64') }
}

/** What pocketsphinx_continuous hears in `audio` (any format ffmpeg reads), as lower-case words. */
async function transcribe(audio: Uint8Array): Promise<string[]> {
  const samples = await ffmpegDecode(audio, [], 16000)
  const dir = await mkdtemp(join(tmpdir(), 'parla-live-'))
  try {
    const file = join(dir, 'speech.wav')
    await writeFile(file, wavBytes(samples, 16000))
    const { stdout } = await run('pocketsphinx_continuous', ['-infile', file, '-logfn', '/dev/null'])
    return stdout.toLowerCase().split(/\s+/).filter(Boolean)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Share of the expected words that were heard, in order (longest common subsequence). */
function heard(expected: string, got: readonly string[]): number {
  const want = expected.toLowerCase().replace(/[^a-z ]/g, '').split(/\s+/)
  const table = Array.from({ length: want.length + 1 }, () => new Array<number>(got.length + 1).fill(0))
  for (let i = 1; i <= want.length; i++) {
    for (let j = 1; j <= got.length; j++) {
      table[i]![j] = want[i - 1] === got[j - 1] ? table[i - 1]![j - 1]! + 1 : Math.max(table[i - 1]![j]!, table[i]![j - 1]!)
    }
  }
  return table[want.length]![got.length]! / want.length
}

describe('official SDKs over the live WebSocket', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
    await s.listen()
  })
  afterAll(async () => s.close())

  it('npm fish-audio convertRealtime: text streamed word by word comes back as speech', async () => {
    const { audio, chunks, error } = await inChild('fish-audio', s.url, s.alice, TEXT, 5)
    expect(error).toBeUndefined()
    expect(chunks).toBeGreaterThan(1)
    expect(heard(TEXT, await transcribe(audio))).toBeGreaterThanOrEqual(0.6)
  })

  it('npm fish-audio convertRealtime in the same process, and a server error as an ERROR event', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const connection = await client.textToSpeech.convertRealtime({ text: '', format: 'pcm', sample_rate: 16000 }, words('Hi there.'))
    const chunks: Buffer[] = []
    await new Promise<void>((resolve, reject) => {
      connection.on(RealtimeEvents.AUDIO_CHUNK, (audio) => chunks.push(Buffer.from(audio as Uint8Array)))
      connection.on(RealtimeEvents.ERROR, (e) => reject(e as Error))
      connection.on(RealtimeEvents.CLOSE, () => resolve())
    })
    connection.close()
    expect(Buffer.concat(chunks).length / 32000).toBeGreaterThan(0.4)

    const bad = await client.textToSpeech.convertRealtime({ text: '', reference_id: 'no-such-voice' }, words('Hi there.'))
    const err = await new Promise<Error>((resolve) => bad.on(RealtimeEvents.ERROR, (e) => resolve(e as Error)))
    bad.close()
    expect(err.message).toBe("Voice model 'no-such-voice' not found; list voices with GET /model")
  })

  it('npm fish-audio-sdk WebSocketSession.tts: text streamed word by word comes back as speech', async () => {
    // This client sends all text and `stop` before it starts listening, so audio that comes back while it is
    // still sending is lost: its words go out back to back, as in its own examples. It also keeps only the
    // first of several messages read at once, which the server makes unlikely with one frame per loop turn.
    const { audio, chunks, error } = await inChild('fish-audio-sdk', s.url, s.alice, TEXT, 0)
    expect(error).toBeUndefined()
    expect(chunks).toBeGreaterThan(1)
    expect(heard(TEXT, await transcribe(audio))).toBeGreaterThanOrEqual(0.6)
  })
})
