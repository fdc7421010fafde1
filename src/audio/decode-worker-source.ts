import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

/**
 * The decoder worker thread, as plain CommonJS evaluated by `new Worker(…, { eval: true })`. Plain JS on
 * purpose: a worker that loads TypeScript through tsx costs about 25 MB more per thread (measured), and
 * it needs none of Parla's modules.
 *
 * The file is fed to the decoder in small chunks; each decoded block is downmixed to mono and posted at
 * once, so the file's own rate and channel count never exist in full. The main thread resamples each block
 * as it arrives (decode-output.ts) and hands the block's buffer back for the next one, so a file does not
 * leave its own size in garbage behind. At most `CREDITS` blocks are unacknowledged, so a busy main thread
 * slows the decoder instead of letting blocks pile up. Decoding stops as soon as more than `maxSeconds`
 * have come out.
 */
export interface DecodeJobMessage {
  readonly type: 'job'
  readonly id: number
  /** `audio-decode`'s format key. */
  readonly format: string
  readonly bytes: Uint8Array
  readonly maxSeconds?: number
}

/** The main thread has taken a block of job `id`; `spare` is the block's buffer, returned for reuse. */
export interface AckMessage {
  readonly type: 'ack'
  readonly id: number
  readonly spare?: Float32Array
}

export type DecodeReply =
  /** Mono samples at `sampleRate`; `expectedSeconds` extrapolates the whole file's duration from its bytes. */
  | { readonly type: 'block'; readonly id: number; readonly samples: Float32Array; readonly sampleRate: number;
      readonly expectedSeconds: number }
  | { readonly type: 'done'; readonly id: number; readonly channels: number }
  | { readonly type: 'too-long'; readonly id: number; readonly decodedSeconds: number }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }

const AUDIO_DECODE_URL = pathToFileURL(createRequire(import.meta.url).resolve('audio-decode')).href

export const DECODE_WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
// Decoders print warnings on hostile input; discard them here (stdio pipes would keep the process alive).
for (const name of ['log', 'info', 'warn', 'error', 'debug']) console[name] = () => {}
const loading = import(${JSON.stringify(AUDIO_DECODE_URL)})
// Small: one chunk of a low-bitrate stream can be minutes of audio, and silence compresses even better.
const CHUNK_BYTES = 8192
const CREDITS = 4
let current = 0
let credits = CREDITS
let resume
const spares = []

parentPort.on('message', (msg) => {
  if (msg.type === 'job') return void run(msg)
  if (msg.type === 'ack' && msg.id === current) {
    if (msg.spare) spares.push(msg.spare)
    credits++
    const wake = resume
    resume = undefined
    if (wake) wake()
  }
})

// Averages the channels into a returned buffer when one is large enough; non-finite values (broken float
// WAVs) become 0 and peaks are clamped.
function downmix(channels) {
  const length = channels[0].length
  const spare = spares.pop()
  const room = spare ? new Float32Array(spare.buffer) : undefined
  const out = room && room.length >= length ? room.subarray(0, length).fill(0) : new Float32Array(length)
  const scale = 1 / channels.length
  for (const ch of channels) for (let i = 0; i < length; i++) out[i] += (ch[i] || 0) * scale
  for (let i = 0; i < length; i++) {
    const v = out[i]
    out[i] = Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0
  }
  return out
}

async function run({ id, format, bytes, maxSeconds }) {
  current = id
  credits = CREDITS
  spares.length = 0
  let dec
  try {
    dec = await (await loading).default[format]()
    let channels = 0
    let seconds = 0
    let fed = 0
    // Posts a decoded block; false once the output passes maxSeconds.
    const take = async (data) => {
      const length = data.channelData.length ? data.channelData[0].length : 0
      if (length === 0) return true
      const rate = data.sampleRate
      if (!(Number.isInteger(rate) && rate >= 1000 && rate <= 384000)) {
        throw new Error('the stream claims a sample rate of ' + rate + ' Hz')
      }
      channels = Math.max(channels, data.channelData.length)
      seconds += length / rate
      if (maxSeconds !== undefined && seconds > maxSeconds) return false
      if (credits === 0) await new Promise((wake) => { resume = wake })
      credits--
      const samples = downmix(data.channelData)
      const expectedSeconds = seconds * (bytes.length / Math.max(1, fed))
      const block = { type: 'block', id, samples, sampleRate: rate, expectedSeconds }
      parentPort.postMessage(block, [samples.buffer])
      return true
    }
    const tooLong = () => parentPort.postMessage({ type: 'too-long', id, decodedSeconds: seconds })
    // audio-decode's streaming FLAC path drops the last frame of some files (measured: 0.06-0.18 s short),
    // so FLAC goes in whole, as before; its length is checked from the header (inspectAudio) instead.
    const chunk = format === 'flac' ? bytes.length : CHUNK_BYTES
    for (let at = 0; at < bytes.length; at += chunk) {
      fed = Math.min(bytes.length, at + chunk)
      // A copy per chunk: some decoders keep references to their input or ignore a view's byteOffset.
      if (!(await take(await dec(bytes.slice(at, at + chunk))))) return tooLong()
    }
    if (!(await take(await dec()))) return tooLong()
    parentPort.postMessage({ type: 'done', id, channels })
  } catch (err) {
    parentPort.postMessage({ type: 'failed', id, message: String((err && err.message) || err) })
  } finally {
    if (dec) dec.free()
  }
}
`
