import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'

/**
 * Flush → first audio for two agent frameworks' frame sequences on `/v1/tts/live`, same sentences, same
 * socket reused for every reply, as each framework's source sends them:
 *  - LiveKit Agents (`livekit-plugins-fishaudio`): header `model: s2.1-pro`; per reply `start` with its full
 *    request (wav 24 kHz, chunk_length 100, latency balanced, quality-guard, its default cloud voice), each
 *    sentence as `text "<sentence> "` + `flush`, then `stop`, read until `finish`.
 *  - Pipecat (`FishAudioTTSService`): one `start` at connect (pcm 24 kHz, latency balanced, no voice), each
 *    sentence as `text` (stripped) + `flush`, one more `flush` at the end of the reply, never `stop`; frames
 *    of 1,024 bytes or less are dropped by the client, so they do not count as its first audio.
 * Each sentence is spoken once per sequence, one after another on the same server, the order turning from
 * sentence to sentence so load changes and order effects hit every sequence alike. After each reply the bench
 * waits until its audio would have finished playing, then for the user's turn (1.5 s), as in a conversation:
 * the server splits off a first phrase only when the client has run out of audio.
 * `aheadMs` > 0 adds a third sequence, LiveKit's with its `start` sent that long before the text: the same
 * frames with the start's voice check out of the way, to tell how much of the gap that check is.
 */
export async function compareClientSequences(url: string, key: string, sentences: readonly string[], aheadMs = 0) {
  const livekit = await LiveClient.open(url, key, 's2.1-pro')
  const pipecat = await LiveClient.open(url, key, 's2-pro')
  pipecat.send({ event: 'start', request: { text: '', sample_rate: 24000, latency: 'balanced', format: 'pcm', normalize: true, prosody: { speed: 1.0, volume: 0 }, reference_id: null } })
  const result = { livekit: [] as number[], pipecat: [] as number[], livekitAhead: [] as number[] }
  const runs: (() => Promise<void>)[] = [
    async () => {
      livekit.send({ event: 'start', request: LIVEKIT_START })
      result.livekit.push(await livekit.speak(livekitFrames(sentence), 'finish', 44))
    },
    async () => void result.pipecat.push(await pipecat.speak([{ event: 'text', text: sentence.trim() }, { event: 'flush' }, { event: 'flush' }], 'quiet', 1024)),
  ]
  if (aheadMs > 0) {
    runs.push(async () => {
      livekit.send({ event: 'start', request: LIVEKIT_START })
      await new Promise((resolve) => setTimeout(resolve, aheadMs))
      result.livekitAhead.push(await livekit.speak(livekitFrames(sentence), 'finish', 44))
    })
  }
  let sentence = ''
  for (const [i, s] of sentences.entries()) {
    sentence = s
    for (let k = 0; k < runs.length; k++) await runs[(i + k) % runs.length]!()
  }
  livekit.close()
  pipecat.close()
  return result
}

const livekitFrames = (sentence: string) => [{ event: 'text', text: `${sentence} ` }, { event: 'flush' }, { event: 'stop' }]

const LIVEKIT_START = {
  text: '', chunk_length: 100, format: 'wav', sample_rate: 24000, mp3_bitrate: 64, opus_bitrate: 64000, references: [],
  reference_id: '933563129e564b19a115bedd57b7406a', normalize: true, latency: 'balanced', prosody: null, top_p: 0.7,
  temperature: 0.7, features: ['quality-guard'],
}

/** 16-bit mono at 24 kHz. */
const BYTES_PER_SEC = 48_000
const USER_TURN_MS = 1500
const listen = (r: Spoken) => new Promise((resolve) => setTimeout(resolve, Math.max(0, r.firstAt + (r.bytes / BYTES_PER_SEC) * 1000 - performance.now()) + USER_TURN_MS))

interface Spoken {
  readonly flushToAudio: number
  readonly firstAt: number
  readonly bytes: number
}

type Frame = { event: string; audio?: Uint8Array; reason?: string; message?: string }

class LiveClient {
  private readonly ws: WebSocket
  private listener: ((frame: Frame) => void) | undefined

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer) => this.listener?.(decode(data) as Frame))
  }

  static open(url: string, key: string, model: string): Promise<LiveClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: { authorization: `Bearer ${key}`, model } })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new LiveClient(ws)))
      ws.once('error', reject)
    })
  }

  /**
   * Sends `frames` (the first `flush` starts the clock) and resolves with ms from that flush to the first audio
   * the client would play: once more than `skipBytes` arrived (a WAV header), or in a frame over `skipBytes`
   * (Pipecat's filter). Ends at `finish`, or for a client that never stops, after 400 ms without audio; then
   * waits while the audio plays and the user takes a turn.
   */
  async speak(frames: readonly object[], end: 'finish' | 'quiet', skipBytes: number): Promise<number> {
    const spoken = await this.exchange(frames, end, skipBytes)
    await listen(spoken)
    return spoken.flushToAudio
  }

  private exchange(frames: readonly object[], end: 'finish' | 'quiet', skipBytes: number): Promise<Spoken> {
    let flushedAt = 0
    let firstAt = 0
    let bytes = 0
    let quiet: NodeJS.Timeout | undefined
    return new Promise((resolve, reject) => {
      const done = () => (firstAt ? resolve({ flushToAudio: firstAt - flushedAt, firstAt, bytes }) : reject(new Error('no audio')))
      this.listener = (frame) => {
        if (frame.event === 'audio') {
          const n = frame.audio!.length
          bytes += n
          const audible = end === 'finish' ? bytes > skipBytes : n > skipBytes
          if (audible && !firstAt) firstAt = performance.now()
          if (end === 'quiet') {
            clearTimeout(quiet)
            quiet = setTimeout(done, 400)
          }
        } else if (frame.event === 'finish') {
          if (frame.reason === 'stop') done()
          else reject(new Error(`finish: ${frame.message}`))
        }
      }
      for (const f of frames) {
        if (!flushedAt && (f as Frame).event === 'flush') flushedAt = performance.now()
        this.send(f)
      }
    })
  }

  send(frame: object): void {
    this.ws.send(encode(frame))
  }

  close(): void {
    this.ws.close()
  }
}
