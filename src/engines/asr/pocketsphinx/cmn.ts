import type { Handle, PocketsphinxApi } from './ffi.js'

/*
 * Struct offsets in sphinxbase 5prealpha on 64-bit Linux (feat.h, cmn.h). feat_t: ... cmn_type_t cmn @68,
 * cmn_t *cmn_struct @88. cmn_t: mfcc_t *cmn_mean @0, *cmn_var @8, *sum @16, int32 nframe @24, veclen @28.
 */
const FEAT_CMN_TYPE = 68
const FEAT_CMN_STRUCT = 88
const CMN_VECLEN = 28
const CMN_LIVE = 2
const CMN_BATCH = 1
const CEPSTRUM_LENGTH = 13

/** Sets a decoder's cepstral mean; see `cepstralMean`. */
export interface CepstralMean {
  /** Sets the mean to that of `samples` (or the model's `-cmninit` when it cannot be measured); also mid-utterance. */
  set(samples?: Int16Array): void
  free(): void
}

/**
 * Sets the cepstral mean before each utterance: the utterance's own (see `utteranceMean`), else the model's
 * `-cmninit`. Live cepstral mean normalisation carries its running mean from one utterance to the next, so a reused
 * decoder's output depended on whichever utterances (other requests') it decoded before. Setting the mean
 * afresh from the utterance alone means the same audio always gives the same words, as from a fresh decoder.
 * The mean is measured with a front end of its own (same settings), so setting it mid-utterance leaves the
 * decoder's front end where it was. Returns undefined when the library's layout is not the expected one (then
 * decoding works as before, only less repeatable).
 */
export function cepstralMean(api: PocketsphinxApi, ps: Handle, config: Handle): CepstralMean | undefined {
  let fe: Handle = null
  try {
    const feat = api.ps_get_feat(ps)
    if (!feat) return undefined
    const type = api.peekInt32(feat, FEAT_CMN_TYPE)
    if (type !== CMN_LIVE && type !== CMN_BATCH) return undefined
    const cmn = api.peekPointer(feat, FEAT_CMN_STRUCT)
    if (!cmn || api.peekInt32(cmn, CMN_VECLEN) !== CEPSTRUM_LENGTH) return undefined
    const initial = new Float32Array(CEPSTRUM_LENGTH)
    api.cmn_live_get(cmn, initial)
    if (!initial.every(Number.isFinite)) return undefined
    fe = api.fe_init_auto_r(config)
    if (!fe) return undefined
    const own = fe
    return {
      set: (samples) => api.cmn_live_set(cmn, (samples && utteranceMean(api, own, samples)) ?? initial),
      free: () => void api.fe_free(own),
    }
  } catch {
    if (fe) api.fe_free(fe)
    return undefined
  }
}

/** Frame shift and window of the en-us front end at 16 kHz (10 ms, 25.6 ms). */
const FRAME_SHIFT = 160
const FRAME_WINDOW = 410

/**
 * A frame of (near) digital zeros, as files joined with zero-filled pauses have: its log energy is far below
 * any recorded silence and would drag the mean's energy term down, so it does not count.
 */
function digitalSilence(samples: Int16Array, frame: number): boolean {
  const end = Math.min(samples.length, frame * FRAME_SHIFT + FRAME_WINDOW)
  for (let i = frame * FRAME_SHIFT; i < end; i++) if (samples[i]! > 2 || samples[i]! < -2) return false
  return true
}

/** Fewer frames (0.2 s) say too little about the channel; the model's initial mean is kept. */
const MIN_FRAMES = 20

/**
 * The cepstral mean of the utterance itself, computed with the decoder's own front end before decoding
 * (batch CMN, as the model was trained). Live CMN from `-cmninit` adapts only after seconds of speech, so audio
 * whose channel differs from the model's (an old broadcast, a phone microphone) was decoded with the wrong
 * mean for most of each utterance; the CLI hides part of this by carrying the adapted mean over from the
 * previous utterance. Measured on the real-speech set (docs/benchmarks.md): 30.5 % WER with the utterance's
 * own mean, 37.3 % when blended with 1 s of the initial mean, 42.4 % with 3 s. Undefined when the front end
 * cannot run or the utterance is too short.
 */
export function utteranceMean(api: PocketsphinxApi, fe: Handle, samples: Int16Array): Float32Array | undefined {
  if (samples.length === 0) return undefined
  // A new stream too: its noise estimate would otherwise carry over from the last utterance decoded.
  api.fe_start_stream(fe)
  api.fe_start_utt(fe)
  const block: [Handle] = [null]
  const count: [number] = [0]
  if (api.fe_process_utt(fe, samples, samples.length, block, count) < 0 || !block[0]) return undefined
  try {
    const frames = count[0]
    if (frames < MIN_FRAMES) return undefined
    const cepstra = api.peekFloats(api.peekPointer(block[0], 0), frames * CEPSTRUM_LENGTH)
    const mean = new Float32Array(CEPSTRUM_LENGTH)
    let used = 0
    for (let f = 0; f < frames; f++) {
      if (digitalSilence(samples, f)) continue
      used++
      for (let k = 0; k < CEPSTRUM_LENGTH; k++) mean[k]! += cepstra[f * CEPSTRUM_LENGTH + k]!
    }
    if (used < MIN_FRAMES) return undefined
    for (let k = 0; k < CEPSTRUM_LENGTH; k++) mean[k]! /= used
    return mean.every(Number.isFinite) ? mean : undefined
  } finally {
    api.ckd_free_2d(block[0])
  }
}
