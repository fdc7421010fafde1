import { createRequire } from 'node:module'
import { SpeechError } from '../../errors.js'

/**
 * libopus from `opusscript`, driven below its JS wrapper. The wrapper writes PCM through a `HEAPU16` view
 * at twice the address it allocated (outside its own buffer), which can corrupt another session's state
 * when several encoders share the module. Here PCM goes straight to a correctly allocated int16 buffer and
 * `_encode` is told 0 bytes, so the handler's byte-unpacking loop does nothing.
 */
interface OpusHandler {
  _encode(pcm: number, bytes: number, out: number, frameSize: number): number
  _encoder_ctl(ctl: number, arg: number): number
}
interface OpusNative {
  readonly HEAP16: Int16Array
  readonly HEAP32: Int32Array
  readonly HEAPU8: Uint8Array
  _malloc(size: number): number
  _free(ptr: number): void
  OpusScriptHandler: { new (rate: number, channels: number, application: number): OpusHandler } & {
    destroy_handler(handler: OpusHandler): void
  }
}

const APPLICATION_AUDIO = 2049
const SET_BITRATE = 4002
const SET_COMPLEXITY = 4010
const GET_LOOKAHEAD = 4027
/** Complexity 5 keeps 48 kHz encoding near RTF 0.01 in wasm; 10 costs 3-4x for little audible gain on speech. */
const COMPLEXITY = 5
const MAX_PACKET = 1276 * 3

let native: OpusNative | undefined

function load(): OpusNative {
  native ??= (createRequire(import.meta.url)('opusscript/build/opusscript_native_wasm.js') as () => OpusNative)()
  return native
}

/** Native memory of one encoder. Plain data, so holding it in the registry keeps no session alive. */
interface Allocation {
  readonly n: OpusNative
  readonly handler: OpusHandler
  readonly pointers: readonly number[]
  open: boolean
}

function release(a: Allocation): void {
  if (!a.open) return
  a.open = false
  a.n.OpusScriptHandler.destroy_handler(a.handler)
  for (const p of a.pointers) a.n._free(p)
}

/** Encoders of sessions dropped without `close()` (aborted streams) are freed when collected. */
const orphans = new FinalizationRegistry<Allocation>(release)

export interface OpusFrameEncoder {
  /** Encoder delay in 48 kHz samples: the Ogg pre-skip. */
  readonly lookahead: number
  /** Encodes one frame of `frameSize` int16 samples; returns a fresh packet. */
  encode(frame: Int16Array): Uint8Array
  close(): void
}

export function openOpus(sampleRate: number, bitrate: number, frameSize: number): OpusFrameEncoder {
  const n = load()
  let handler: OpusHandler
  try {
    handler = new n.OpusScriptHandler(sampleRate, 1, APPLICATION_AUDIO)
  } catch (err) {
    throw new SpeechError('internal_error', `[opus] encoder creation failed for ${sampleRate} Hz`, { cause: err })
  }
  const pcm = n._malloc(frameSize * 2)
  const out = n._malloc(MAX_PACKET)
  const scratch = n._malloc(4)
  const allocation: Allocation = { n, handler, pointers: [pcm, out, scratch], open: true }
  const token = {}
  orphans.register(token, allocation, token)
  const ctl = (code: number, arg: number): void => {
    const rc = handler._encoder_ctl(code, arg)
    if (rc < 0) throw new SpeechError('internal_error', `[opus] encoder_ctl ${code}(${arg}) failed: ${rc}`)
  }
  try {
    ctl(SET_BITRATE, bitrate)
    ctl(SET_COMPLEXITY, COMPLEXITY)
    ctl(GET_LOOKAHEAD, scratch)
  } catch (err) {
    orphans.unregister(token)
    release(allocation)
    throw err
  }
  const lookahead = n.HEAP32[scratch >> 2]!

  return {
    lookahead,
    encode(frame) {
      if (!allocation.open) throw new SpeechError('internal_error', '[opus] encoder used after close()')
      // Views are re-read every call: the heap may have grown and detached older ones.
      n.HEAP16.set(frame, pcm >> 1)
      const length = handler._encode(pcm, 0, out, frameSize)
      if (length < 0) throw new SpeechError('internal_error', `[opus] encode failed: ${length}`)
      return n.HEAPU8.slice(out, out + length)
    },
    close() {
      orphans.unregister(token)
      release(allocation)
    },
  }
}
