import koffi, { type LibraryHandle } from 'koffi'
import { SpeechError } from '../../../errors.js'

/** Opaque native handles; koffi hands them back as values we only pass through. */
export type Handle = unknown

/** The slice of the pocketsphinx 5prealpha C API the decoder uses, bound through koffi. */
export interface PocketsphinxApi {
  cmd_ln_parse_r(inout: Handle, defn: Handle, argc: number, argv: readonly string[], strict: number): Handle
  cmd_ln_free_r(config: Handle): number
  ps_args(): Handle
  ps_init(config: Handle): Handle
  ps_free(ps: Handle): number
  ps_start_stream(ps: Handle): number
  ps_start_utt(ps: Handle): number
  ps_process_raw(ps: Handle, data: Int16Array, n: number, noSearch: number, fullUtt: number): number
  ps_end_utt(ps: Handle): number
  /** The best hypothesis so far (mid-utterance too), or null before any word. */
  ps_get_hyp(ps: Handle, bestScore: [number]): string | null
  ps_seg_iter(ps: Handle): Handle
  ps_seg_next(seg: Handle): Handle
  ps_seg_free(seg: Handle): void
  ps_seg_word(seg: Handle): string
  ps_seg_frames(seg: Handle, sf: [number], ef: [number]): void
  ps_seg_prob(seg: Handle, ascr: [number], lscr: [number], lback: [number]): number
  ps_get_logmath(ps: Handle): Handle
  ps_get_feat(ps: Handle): Handle
  logmath_exp(lmath: Handle, logp: number): number
  cmn_live_get(cmn: Handle, vec: Float32Array): void
  cmn_live_set(cmn: Handle, vec: Float32Array): void
  /** Forced alignment (align.ts): a grammar of exactly the words, made the active search. */
  ps_set_jsgf_string(ps: Handle, name: string, jsgf: string): number
  ps_set_search(ps: Handle, name: string): number
  /** A front end of its own from the decoder's config, to measure means while the decoder's is decoding. */
  fe_init_auto_r(config: Handle): Handle
  fe_free(fe: Handle): number
  fe_start_stream(fe: Handle): void
  fe_start_utt(fe: Handle): number
  fe_process_utt(fe: Handle, spch: Int16Array, nsamps: number, cepBlock: [Handle], nframes: [number]): number
  ckd_free_2d(block: Handle): void
  /** `count` floats at `ptr`. */
  peekFloats(ptr: Handle, count: number): Float32Array
  /** Reads a field of a native struct. */
  peekPointer(ptr: Handle, offset: number): Handle
  peekInt32(ptr: Handle, offset: number): number
  /** The n-gram model reader, for the LM's vocabulary (dictionary.ts). `type` 0 is NGRAM_AUTO. */
  logmath_init(base: number, shift: number, useTable: number): Handle
  logmath_free(lmath: Handle): number
  ngram_model_read(config: Handle, file: string, type: number, lmath: Handle): Handle
  ngram_model_free(model: Handle): number
  /** Points at one count per order: unigrams first. */
  ngram_model_get_counts(model: Handle): Handle
  ngram_word(model: Handle, wid: number): string
  /** The library's one log stream for the whole process; NULL turns its logging off. */
  err_set_logfp(stream: Handle): void
  peekUint32(ptr: Handle, offset: number): number
}

let api: PocketsphinxApi | undefined

/** Loads the Debian shared libraries once per thread (koffi bindings are per isolate). */
export function loadPocketsphinx(): PocketsphinxApi {
  if (api) return api
  let base: LibraryHandle
  let ps: LibraryHandle
  try {
    base = koffi.load('libsphinxbase.so.3')
    ps = koffi.load('libpocketsphinx.so.3')
  } catch (err) {
    throw new SpeechError(
      'unavailable',
      '[pocketsphinx] cannot load libpocketsphinx.so.3 / libsphinxbase.so.3; install the Debian packages ' +
        'libpocketsphinx3 and libsphinxbase3',
      { cause: err },
    )
  }
  api = {
    cmd_ln_parse_r: base.func(
      'void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)'),
    cmd_ln_free_r: base.func('int cmd_ln_free_r(void *config)'),
    err_set_logfp: base.func('void err_set_logfp(void *stream)'),
    logmath_exp: base.func('double logmath_exp(void *lmath, int logp)'),
    // mfcc_t is float in Debian's floating-point build.
    cmn_live_get: base.func('void cmn_live_get(void *cmn, _Out_ float *vec)'),
    cmn_live_set: base.func('void cmn_live_set(void *cmn, const float *vec)'),
    fe_init_auto_r: base.func('void *fe_init_auto_r(void *config)'),
    fe_free: base.func('int fe_free(void *fe)'),
    fe_start_stream: base.func('void fe_start_stream(void *fe)'),
    fe_start_utt: base.func('int fe_start_utt(void *fe)'),
    fe_process_utt: base.func(
      'int fe_process_utt(void *fe, const int16_t *spch, size_t nsamps, _Out_ void **cep_block, _Out_ int *nframes)'),
    ckd_free_2d: base.func('void ckd_free_2d(void *block)'),
    peekFloats: (ptr: Handle, count: number) => Float32Array.from(koffi.decode(ptr, 'float', count) as number[]),
    peekPointer: (ptr: Handle, offset: number) => koffi.decode(ptr, offset, 'void *') as Handle,
    peekInt32: (ptr: Handle, offset: number) => koffi.decode(ptr, offset, 'int32_t') as number,
    peekUint32: (ptr: Handle, offset: number) => koffi.decode(ptr, offset, 'uint32_t') as number,
    logmath_init: base.func('void *logmath_init(double base, int shift, int use_table)'),
    logmath_free: base.func('int logmath_free(void *lmath)'),
    ngram_model_read: base.func('void *ngram_model_read(void *config, const char *file, int type, void *lmath)'),
    ngram_model_free: base.func('int ngram_model_free(void *model)'),
    ngram_model_get_counts: base.func('const uint32_t *ngram_model_get_counts(void *model)'),
    ngram_word: base.func('const char *ngram_word(void *model, int32_t wid)'),
    ps_args: ps.func('void *ps_args()'),
    ps_init: ps.func('void *ps_init(void *config)'),
    ps_free: ps.func('int ps_free(void *ps)'),
    ps_start_stream: ps.func('int ps_start_stream(void *ps)'),
    ps_start_utt: ps.func('int ps_start_utt(void *ps)'),
    ps_process_raw: ps.func(
      'int ps_process_raw(void *ps, const int16_t *data, size_t n, int noSearch, int fullUtt)'),
    ps_end_utt: ps.func('int ps_end_utt(void *ps)'),
    ps_get_hyp: ps.func('const char *ps_get_hyp(void *ps, _Out_ int *out_best_score)'),
    ps_seg_iter: ps.func('void *ps_seg_iter(void *ps)'),
    ps_seg_next: ps.func('void *ps_seg_next(void *seg)'),
    ps_seg_free: ps.func('void ps_seg_free(void *seg)'),
    ps_seg_word: ps.func('const char *ps_seg_word(void *seg)'),
    ps_seg_frames: ps.func('void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)'),
    ps_seg_prob: ps.func('int ps_seg_prob(void *seg, _Out_ int *ascr, _Out_ int *lscr, _Out_ int *lback)'),
    ps_get_logmath: ps.func('void *ps_get_logmath(void *ps)'),
    ps_get_feat: ps.func('void *ps_get_feat(void *ps)'),
    ps_set_jsgf_string: ps.func('int ps_set_jsgf_string(void *ps, const char *name, const char *jsgf_string)'),
    ps_set_search: ps.func('int ps_set_search(void *ps, const char *name)'),
  } as PocketsphinxApi
  // The library's log is one process-wide FILE. `-logfn` made every decoder's init open a new one and fclose
  // the old one while decoders in other threads were writing to it: a write into freed memory that corrupted
  // the heap and, now and then, crashed the process at a worker thread's exit (glibc's tcache_thread_shutdown,
  // seen in a core dump). Logging off once, before any decoder, opens no FILE at all; every thread sets the
  // same value.
  api.err_set_logfp(null)
  return api
}
