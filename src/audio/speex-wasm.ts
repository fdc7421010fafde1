/**
 * The SpeexDSP resampler as a raw emscripten module (`@echogarden/speex-resampler-wasm`). One module per
 * process; resampler states live in its heap. The SIMD build is about 4x faster; the plain one is the
 * fallback for runtimes without wasm SIMD.
 */
export interface SpeexModule {
  readonly HEAPF32: Float32Array
  readonly HEAPU32: Uint32Array
  readonly HEAP32: Int32Array
  _malloc(size: number): number
  _free(ptr: number): void
  _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errPtr: number): number
  _speex_resampler_process_float(
    state: number,
    channel: number,
    input: number,
    inLenPtr: number,
    output: number,
    outLenPtr: number,
  ): number
  _speex_resampler_skip_zeros(state: number): number
  _speex_resampler_get_input_latency(state: number): number
  _speex_resampler_destroy(state: number): void
}

async function load(): Promise<SpeexModule> {
  try {
    const simd = await import('@echogarden/speex-resampler-wasm/simd')
    return (await simd.default()) as SpeexModule
  } catch {
    const plain = await import('@echogarden/speex-resampler-wasm')
    return (await plain.default()) as SpeexModule
  }
}

export const speex: SpeexModule = await load()

/** Samples per `process_float` call; the scratch buffers below are shared, calls being synchronous. */
export const IN_BLOCK = 16384
export const OUT_BLOCK = 65536
export const scratch = {
  input: speex._malloc(IN_BLOCK * 4),
  output: speex._malloc(OUT_BLOCK * 4),
  /** Two u32: input length, output length (in and out parameters). */
  lengths: speex._malloc(8),
  error: speex._malloc(4),
} as const
