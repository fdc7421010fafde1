/**
 * The Rubber Band C API compiled to wasm (`@echogarden/rubberband-wasm`), loaded once on first use. Every
 * stretcher state and buffer lives in this one heap, so each caller frees what it allocates.
 */
export interface RubberBandModule {
  readonly HEAPF32: Float32Array
  readonly HEAPU32: Uint32Array
  readonly HEAPU8: Uint8Array
  _malloc(size: number): number
  _free(ptr: number): void
  _rubberband_new(rate: number, channels: number, options: number, timeRatio: number, pitchScale: number): number
  _rubberband_delete(state: number): void
  _rubberband_set_formant_scale(state: number, scale: number): void
  _rubberband_set_max_process_size(state: number, samples: number): void
  _rubberband_set_expected_input_duration(state: number, samples: number): void
  _rubberband_get_preferred_start_pad(state: number): number
  _rubberband_get_start_delay(state: number): number
  _rubberband_get_samples_required(state: number): number
  _rubberband_study(state: number, input: number, samples: number, final: number): void
  _rubberband_process(state: number, input: number, samples: number, final: number): void
  _rubberband_available(state: number): number
  _rubberband_retrieve(state: number, output: number, samples: number): number
}

/** Option bits of `rubberband_new` (rubberband-c.h). */
export const RB = {
  processRealTime: 0x1,
  windowShort: 0x100000,
  formantPreserved: 0x1000000,
  pitchHighConsistency: 0x4000000,
  engineFiner: 0x20000000,
} as const

let loading: Promise<RubberBandModule> | undefined

export function rubberBand(): Promise<RubberBandModule> {
  loading ??= import('@echogarden/rubberband-wasm')
    .then((m) => m.default())
    .then((m) => m as RubberBandModule)
    .catch((err: unknown) => {
      loading = undefined
      throw err
    })
  return loading
}

/** Bytes in the wasm heap; it only grows, so a leak shows as growth across many calls. */
export async function rubberBandHeapBytes(): Promise<number> {
  return (await rubberBand()).HEAPU8.length
}

/**
 * One stretcher state plus a one-channel I/O buffer (`float*` and the `float**` pointing at it). `free()`
 * releases all three and is safe to call twice.
 */
export interface RbSession {
  readonly rb: RubberBandModule
  readonly state: number
  readonly block: number
  /** Copies `samples` (at most `block`) into the input buffer; returns the `float**` to pass. */
  load(samples: Float32Array): number
  /** Retrieves everything available, appending to `out`; returns `available()` after draining. */
  drain(out: Float32Array[]): number
  free(): void
}

export function openSession(rb: RubberBandModule, state: number, block: number): RbSession {
  let buffer = 0
  let pointers = 0
  let live = true
  try {
    buffer = rb._malloc(block * 4)
    pointers = rb._malloc(4)
    if (!buffer || !pointers) throw new Error('[rubberband] out of wasm memory')
  } catch (err) {
    if (buffer) rb._free(buffer)
    rb._rubberband_delete(state)
    throw err
  }
  // Heap views are replaced when memory grows, so they are read from the module at every use.
  rb.HEAPU32[pointers >> 2] = buffer
  return {
    rb,
    state,
    block,
    load(samples) {
      rb.HEAPF32.set(samples, buffer >> 2)
      return pointers
    },
    drain(out) {
      let available = rb._rubberband_available(state)
      while (available > 0) {
        const got = rb._rubberband_retrieve(state, pointers, Math.min(available, block))
        if (got <= 0) break
        out.push(rb.HEAPF32.slice(buffer >> 2, (buffer >> 2) + got))
        available = rb._rubberband_available(state)
      }
      return available
    },
    free() {
      if (!live) return
      live = false
      rb._free(buffer)
      rb._free(pointers)
      rb._rubberband_delete(state)
    },
  }
}
