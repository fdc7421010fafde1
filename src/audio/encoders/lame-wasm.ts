import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { SpeechError } from '../../errors.js'

/**
 * LAME from `wasm-media-encoders`, driven through its raw exports. The package's own wrapper is async and
 * gives every encoder a 16 MB wasm instance; `EncoderSession` is synchronous and a server runs many streams,
 * so all sessions share one synchronously created instance, each with its own LAME state (`ref`).
 * The ABI is the package's 0.7 one; `loadInstance` refuses any other version.
 */
interface LameExports {
  readonly memory: { readonly buffer: ArrayBuffer }
  _initialize(): void
  version(): number
  mime_type(): number
  malloc(size: number): number
  free(ptr: number): void
  enc_init(params: number): number
  enc_get_pcm(ref: number, samples: number): number
  enc_encode(ref: number, samples: number): number
  enc_get_out_buf(ref: number): number
  enc_flush(ref: number): number
  enc_free(ref: number): void
}

/** The lib settings carry no DOM/wasm typings; this is the slice of the global API used here. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object, imports: object) => { readonly exports: object }
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

const EXPECTED_VERSION = 'wasm-media-encoders-0.7.'
/** Samples handed to LAME per call; keeps its PCM buffer (and so the shared memory) small. */
const BLOCK = 8192

let compiled: object | undefined
let shared: LameExports | undefined

function cString(x: LameExports, ptr: number): string {
  const bytes = new Uint8Array(x.memory.buffer, ptr)
  const end = bytes.indexOf(0)
  return new TextDecoder().decode(bytes.subarray(0, end < 0 ? 0 : end))
}

function loadInstance(): LameExports {
  if (shared) return shared
  if (!compiled) {
    const path = createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3')
    compiled = new wasm.Module(readFileSync(path))
  }
  const instance = new wasm.Instance(compiled, {
    wasi_snapshot_preview1: {
      proc_exit: (code: number) => {
        throw new Error(`LAME exited with ${code}`)
      },
    },
    env: { emscripten_notify_memory_growth: () => {} },
  })
  const x = instance.exports as unknown as LameExports
  x._initialize()
  const version = cString(x, x.version())
  if (!version.startsWith(EXPECTED_VERSION) || cString(x, x.mime_type()) !== 'audio/mpeg') {
    const msg = `[mp3] wasm-media-encoders ${version} is not the 0.7 ABI this driver knows`
    throw new SpeechError('internal_error', msg)
  }
  shared = x
  return x
}

/** States of sessions dropped without `finish()` (aborted streams); freed when their owner is collected. */
const orphans = new FinalizationRegistry<{ x: LameExports; ref: number }>(({ x, ref }) => {
  if (x !== shared) return
  try {
    x.enc_free(ref)
  } catch {
    shared = undefined
  }
})

export interface LameStream {
  encode(samples: Float32Array): Uint8Array[]
  finish(): Uint8Array
}

export function openLame(sampleRate: number, kbps: number): LameStream {
  const x = loadInstance()
  const params = x.malloc(20)
  const view = new DataView(x.memory.buffer, params, 20)
  view.setUint32(0, 1, true) // channels
  view.setUint32(4, sampleRate, true)
  view.setInt32(8, kbps, true)
  view.setFloat32(12, -1, true) // no VBR quality: constant bitrate
  view.setInt32(16, 0, true) // output rate = input rate
  const ref = x.enc_init(params)
  x.free(params)
  if (!ref) throw new SpeechError('internal_error', `[mp3] LAME refused ${sampleRate} Hz at ${kbps} kb/s`)
  const token = {}
  orphans.register(token, { x, ref }, token)
  let open = true

  // A trap leaves the shared instance in an unknown state: drop it so later sessions start clean.
  const guarded = <T>(fn: () => T): T => {
    if (!open) throw new SpeechError('internal_error', '[mp3] encoder used after end()')
    try {
      return fn()
    } catch (err) {
      open = false
      orphans.unregister(token)
      if (shared === x) shared = undefined
      throw new SpeechError('internal_error', `[mp3] LAME failed: ${(err as Error).message}`, { cause: err })
    }
  }
  const output = (length: number): Uint8Array => {
    if (length < 0) throw new Error(`encode returned ${length}`)
    return new Uint8Array(x.memory.buffer, x.enc_get_out_buf(ref), length).slice()
  }

  return {
    encode: (samples) =>
      guarded(() => {
        const parts: Uint8Array[] = []
        for (let offset = 0; offset < samples.length; offset += BLOCK) {
          const block = samples.subarray(offset, Math.min(samples.length, offset + BLOCK))
          const channels = x.enc_get_pcm(ref, block.length)
          if (!channels) throw new Error('PCM buffer allocation failed')
          const channel0 = new Uint32Array(x.memory.buffer, channels, 1)[0]!
          new Float32Array(x.memory.buffer, channel0, block.length).set(block)
          const bytes = output(x.enc_encode(ref, block.length))
          if (bytes.length > 0) parts.push(bytes)
        }
        return parts
      }),
    finish: () =>
      guarded(() => {
        const tail = output(x.enc_flush(ref))
        x.enc_free(ref)
        orphans.unregister(token)
        open = false
        return tail
      }),
  }
}
