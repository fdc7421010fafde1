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

/**
 * Live cepstral mean normalisation carries its running mean from one utterance to the next, so a reused
 * decoder's output depended on whichever utterances (other requests') it decoded before. This pins the
 * mean back to the model's `-cmninit` before each utterance: the same audio always gives the same words,
 * as from a fresh decoder, at no cost. Returns undefined when the library's layout is not the expected one
 * (then decoding works as before, only less repeatable).
 */
export function cmnResetter(api: PocketsphinxApi, ps: Handle): (() => void) | undefined {
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
    return () => api.cmn_live_set(cmn, initial)
  } catch {
    return undefined
  }
}
