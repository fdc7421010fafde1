/**
 * The decoder worker thread (started by decode-worker.ts). The file is fed to `audio-decode` in small
 * chunks; each decoded block is downmixed to mono and posted at once, so the file's own rate and channel count
 * never exist in full. The main thread resamples each block as it arrives (decode-output.ts) and hands the
 * block's buffer back for the next one, so a file does not leave its own size in garbage behind. At most
 * `CREDITS` blocks are unacknowledged, so a busy main thread slows the decoder instead of letting blocks pile
 * up. Decoding stops as soon as more than `maxSeconds` have come out.
 */
import { parentPort } from 'node:worker_threads'
import type { AudioData, StreamDecoder } from 'audio-decode'
import type { AckMessage, DecodeJobMessage, DecodeReply } from './decode-protocol.js'

const port = parentPort!
// Decoders print warnings on hostile input; discard them here (stdio pipes would keep the process alive).
for (const name of ['log', 'info', 'warn', 'error', 'debug'] as const) console[name] = () => {}
const loading = import('audio-decode')
/** Small: one chunk of a low-bitrate stream can be minutes of audio, and silence compresses even better. */
const CHUNK_BYTES = 8192
const CREDITS = 4
let current = 0
let credits = CREDITS
let resume: (() => void) | undefined
const spares: Float32Array[] = []

const post = (reply: DecodeReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer)

port.on('message', (msg: DecodeJobMessage | AckMessage) => {
  if (msg.type === 'job') return void run(msg)
  if (msg.id !== current) return
  if (msg.spare) spares.push(msg.spare)
  credits++
  const wake = resume
  resume = undefined
  wake?.()
})

/**
 * Averages the channels into a returned buffer when one is large enough; non-finite values (broken float
 * WAVs) become 0 and peaks are clamped.
 */
function downmix(channels: readonly Float32Array[]): Float32Array {
  const length = channels[0]!.length
  const spare = spares.pop()
  const room = spare ? new Float32Array(spare.buffer) : undefined
  const out = room && room.length >= length ? room.subarray(0, length).fill(0) : new Float32Array(length)
  const scale = 1 / channels.length
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += (ch[i] || 0) * scale
  for (let i = 0; i < length; i++) {
    const v = out[i]!
    out[i] = Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0
  }
  return out
}

async function run({ id, format, bytes, maxSeconds }: DecodeJobMessage): Promise<void> {
  current = id
  credits = CREDITS
  spares.length = 0
  let dec: StreamDecoder | undefined
  try {
    const decoders = (await loading).default as unknown as Record<string, (() => Promise<StreamDecoder>) | undefined>
    const create = decoders[format]
    if (!create) throw new Error(`no decoder for ${format}`)
    dec = await create()
    let channels = 0
    let seconds = 0
    let fed = 0
    // Posts a decoded block; false once the output passes maxSeconds.
    const take = async (data: AudioData): Promise<boolean> => {
      const length = data.channelData[0]?.length ?? 0
      if (length === 0) return true
      const rate = data.sampleRate
      if (!(Number.isInteger(rate) && rate >= 1000 && rate <= 384000)) {
        throw new Error(`the stream claims a sample rate of ${rate} Hz`)
      }
      channels = Math.max(channels, data.channelData.length)
      seconds += length / rate
      if (maxSeconds !== undefined && seconds > maxSeconds) return false
      if (credits === 0) await new Promise<void>((wake) => { resume = wake })
      credits--
      const samples = downmix(data.channelData)
      const expectedSeconds = seconds * (bytes.length / Math.max(1, fed))
      post({ type: 'block', id, samples, sampleRate: rate, expectedSeconds }, [samples.buffer as ArrayBuffer])
      return true
    }
    const tooLong = () => post({ type: 'too-long', id, decodedSeconds: seconds })
    // audio-decode's streaming FLAC path drops the last frame of some files (measured: 0.06-0.18 s short),
    // so FLAC goes in whole; its length is checked from the header (inspectAudio) instead.
    const chunk = format === 'flac' ? bytes.length : CHUNK_BYTES
    for (let at = 0; at < bytes.length; at += chunk) {
      fed = Math.min(bytes.length, at + chunk)
      // A copy per chunk: some decoders keep references to their input or ignore a view's byteOffset.
      if (!(await take(await dec(bytes.slice(at, at + chunk))))) return tooLong()
    }
    if (!(await take(await dec()))) return tooLong()
    post({ type: 'done', id, channels })
  } catch (err) {
    post({ type: 'failed', id, message: err instanceof Error ? err.message : String(err) })
  } finally {
    dec?.free()
  }
}
