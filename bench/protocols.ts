/**
 * The OpenAI and Wyoming surfaces against the Fish routes they sit beside, on the same server, voice, text
 * and format, in alternating rounds that also swap which goes first (a load change on the shared machine, or
 * the first request's leftovers, hits both sides alike):
 * - TTS: time to the first audio byte of `POST /v1/audio/speech` vs `POST /v1/tts` (same rate, 24 kHz), and
 *   time to the first Wyoming `audio-chunk` after `synthesize` vs `/v1/tts` pcm at Wyoming's 22.05 kHz;
 * - ASR: total time of `POST /v1/audio/transcriptions` vs `POST /v1/asr` for the same upload.
 * Used by bench/tts.ts and bench/asr.ts; `BENCH_ONLY=protocols` runs only these.
 */
import { connect } from 'node:net'
import { Agent, request } from 'node:http'
import { median } from './stats.js'

interface Ready { readonly url: string; readonly key: string; readonly wyomingPort?: number }

const agent = new Agent({ keepAlive: true, maxSockets: 8 })
const f0 = (n: number) => n.toFixed(0)

/**
 * Round `i`'s two measurements, the Fish one first on even rounds and second on odd ones: whichever runs second
 * meets the first one's leftovers (its garbage, its connection's teardown), which must not count against one side.
 */
async function inTurn(i: number, fish: () => Promise<number>, other: () => Promise<number>): Promise<[number, number]> {
  if (i % 2 === 0) return [await fish(), await other()]
  const b = await other()
  return [await fish(), b]
}

/** ms to the first body byte of a JSON POST (the body is drained to the end). */
function firstByte(ready: Ready, path: string, body: object): Promise<number> {
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    let first = 0
    const req = request(new URL(path, ready.url), {
      method: 'POST', agent,
      headers: { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${path}: HTTP ${res.statusCode}`))
      res.on('data', () => void (first ||= performance.now() - t0))
      res.on('end', () => resolve(first))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** ms from writing `synthesize` to the first `audio-chunk` header on a fresh connection; the rest is drained. */
function wyomingFirstChunk(port: number, text: string, voice: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const data = Buffer.from(JSON.stringify({ text, voice: { name: voice } }))
      const t0 = performance.now()
      let first = 0
      let seen = ''
      socket.on('data', (chunk: Buffer) => {
        // Headers are JSON lines; payloads are binary, so search the latin1 text for the event types.
        seen = (seen + chunk.toString('latin1')).slice(-4096)
        if (!first && seen.includes('"type": "audio-chunk"') || !first && seen.includes('"type":"audio-chunk"')) first = performance.now() - t0
        if (seen.includes('"audio-stop"')) {
          socket.end()
          resolve(first)
        }
      })
      socket.write(Buffer.concat([Buffer.from(JSON.stringify({ type: 'synthesize', data_length: data.length }) + '\n'), data]))
    })
    socket.on('error', reject)
  })
}

/** First-byte comparison for TTS; prints a markdown table. */
export async function ttsProtocols(ready: Ready, text: string, runs: number, voice = 'festival-slt'): Promise<void> {
  console.log(`\nProtocols (voice ${voice}, ${text.length} chars, latency balanced; median of ${runs} alternating runs, first one discarded)\n`)
  console.log('| comparison | Fish route first byte ms | other surface first byte ms | ratio |')
  console.log('|---|---|---|---|')
  for (const format of ['pcm', 'mp3', 'opus', 'wav']) {
    const fish: number[] = []
    const openai: number[] = []
    for (let i = -1; i < runs; i++) {
      const [a, b] = await inTurn(i,
        () => firstByte(ready, '/v1/tts', { text, reference_id: voice, format, sample_rate: format === 'opus' ? 48000 : 24000 }),
        () => firstByte(ready, '/v1/audio/speech', { input: text, voice, model: 'tts-1', response_format: format }))
      if (i < 0) continue
      fish.push(a)
      openai.push(b)
    }
    console.log(`| /v1/audio/speech vs /v1/tts, ${format} | ${f0(median(fish))} | ${f0(median(openai))} | ${(median(openai) / median(fish)).toFixed(3)} |`)
  }
  const openaiOnly: number[] = []
  for (const format of ['aac', 'flac']) {
    openaiOnly.length = 0
    for (let i = -1; i < runs; i++) {
      const b = await firstByte(ready, '/v1/audio/speech', { input: text, voice, model: 'tts-1', response_format: format })
      if (i >= 0) openaiOnly.push(b)
    }
    console.log(`| /v1/audio/speech ${format} (ffmpeg child; no Fish equivalent) | | ${f0(median(openaiOnly))} | |`)
  }
  if (ready.wyomingPort) {
    const fish: number[] = []
    const wy: number[] = []
    for (let i = -1; i < runs; i++) {
      const [a, b] = await inTurn(i,
        () => firstByte(ready, '/v1/tts', { text, reference_id: voice, format: 'pcm', sample_rate: 22050 }),
        () => wyomingFirstChunk(ready.wyomingPort!, text, voice))
      if (i < 0) continue
      fish.push(a)
      wy.push(b)
    }
    console.log(`| Wyoming first audio-chunk vs /v1/tts pcm (22.05 kHz) | ${f0(median(fish))} | ${f0(median(wy))} | ${(median(wy) / median(fish)).toFixed(3)} |`)
  }
  agent.destroy()
}

/** Total time of one multipart upload to `path` with the file in `field`. */
async function upload(ready: Ready, path: string, field: string, bytes: Uint8Array, extra: Record<string, string>): Promise<number> {
  const form = new FormData()
  form.append(field, new Blob([bytes]), 'bench.wav')
  for (const [k, v] of Object.entries(extra)) form.append(k, v)
  const t0 = performance.now()
  const res = await fetch(`${ready.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ready.key}` }, body: form })
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  await res.arrayBuffer()
  return performance.now() - t0
}

/** Transcription time, `/v1/audio/transcriptions` (verbose_json with segments) vs `/v1/asr` (timestamps). */
export async function asrProtocols(ready: Ready, wav: Uint8Array, seconds: number, runs: number): Promise<void> {
  const fish: number[] = []
  const openai: number[] = []
  for (let i = -1; i < runs; i++) {
    const [a, b] = await inTurn(i,
      () => upload(ready, '/v1/asr', 'audio', wav, { ignore_timestamps: 'false' }),
      () => upload(ready, '/v1/audio/transcriptions', 'file', wav, { model: 'whisper-1', response_format: 'verbose_json', 'timestamp_granularities[]': 'segment' }))
    if (i < 0) continue
    fish.push(a)
    openai.push(b)
  }
  console.log(`\nProtocols: ${seconds.toFixed(0)} s WAV, median of ${runs} alternating runs: /v1/asr ${f0(median(fish))} ms, ` +
    `/v1/audio/transcriptions ${f0(median(openai))} ms, ratio ${(median(openai) / median(fish)).toFixed(3)}`)
}
