import { buildModel, FLOAT, INT64 } from './graph.js'

/**
 * A synthetic English-only Whisper (encoder + decoder, the interface sherpa-onnx's offline-whisper-model.cc
 * and its greedy search run): the audio holds up to `SLOTS` tones at the times `toneSpeech` (tone-ctc.ts)
 * puts them (0.15 s + 0.35 s per token, 10 ms frames); the word in slot i is the band (8 bands of 10 of
 * Whisper's 80 mel bins) of its loudest bin, or nothing when the slot is silent.
 *
 * - encoder (`mel` (1, 80, T)) → `n_layer_cross_k`/`n_layer_cross_v` (1, 1, SLOTS, 1): per slot, 0 for
 *   silence or the band number 1..8.
 * - decoder (`tokens` (1, n), self k/v caches, cross k/v, `offset` (1)) → `logits` (1, n, vocab) and the
 *   caches: the position being predicted is `offset + n - 2` (the runtime primes with sot, no_timestamps),
 *   and the logits pick that slot's word, or end-of-text after the last word.
 */
export const WHISPER_SLOTS = 8
export const WHISPER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']
/** Token ids: 0-7 the words (with their leading space, as Whisper's tokens have), then the specials. */
export const WHISPER_SPECIALS = { eot: 8, sot: 9, no_timestamps: 10, transcribe: 11, translate: 12, no_speech: 13, blank_id: 14 }
const VOCAB = 16
const FIRST = 15
const SLOT_FRAMES = 35
const CTX = 64

export function whisperEncoder(): Uint8Array {
  return buildModel({
    inputs: [{ name: 'mel', type: FLOAT, shape: [1, 80, 'T'] }],
    outputs: [
      { name: 'n_layer_cross_k', type: FLOAT, shape: [1, 1, WHISPER_SLOTS, 1] },
      { name: 'n_layer_cross_v', type: FLOAT, shape: [1, 1, WHISPER_SLOTS, 1] },
    ],
    initializers: [
      { name: 'starts', type: INT64, dims: [1], values: [FIRST] },
      { name: 'ends', type: INT64, dims: [1], values: [FIRST + WHISPER_SLOTS * SLOT_FRAMES] },
      { name: 'axes', type: INT64, dims: [1], values: [2] },
      { name: 'slots_shape', type: INT64, dims: [4], values: [1, 80, WHISPER_SLOTS, SLOT_FRAMES] },
      { name: 'bands_shape', type: INT64, dims: [4], values: [1, 8, 10, WHISPER_SLOTS] },
      { name: 'out_shape', type: INT64, dims: [4], values: [1, 1, WHISPER_SLOTS, 1] },
      // Whisper's features are (log10 - 4 + clamp) / 4: a tone's bin is ~2 above silence; a silent slot's bins
      // all equal the mean, so the silence score (mean + 0.5) wins there.
      { name: 'bias', type: FLOAT, dims: [], values: [0.5] },
    ],
    nodes: [
      { op: 'Slice', inputs: ['mel', 'starts', 'ends', 'axes'], outputs: ['used'] },
      { op: 'Reshape', inputs: ['used', 'slots_shape'], outputs: ['by_slot'] },
      { op: 'ReduceMean', inputs: ['by_slot'], outputs: ['slot_mel'], attributes: [{ name: 'axes', ints: [3] }, { name: 'keepdims', i: 0 }] },
      { op: 'Reshape', inputs: ['slot_mel', 'bands_shape'], outputs: ['banded'] },
      { op: 'ReduceMax', inputs: ['banded'], outputs: ['band_max'], attributes: [{ name: 'axes', ints: [2] }, { name: 'keepdims', i: 0 }] },
      { op: 'ReduceMean', inputs: ['slot_mel'], outputs: ['mean'], attributes: [{ name: 'axes', ints: [1] }, { name: 'keepdims', i: 1 }] },
      { op: 'Add', inputs: ['mean', 'bias'], outputs: ['silence'] },
      { op: 'Concat', inputs: ['silence', 'band_max'], outputs: ['scores'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'ArgMax', inputs: ['scores'], outputs: ['word'], attributes: [{ name: 'axis', i: 1 }, { name: 'keepdims', i: 0 }] },
      { op: 'Cast', inputs: ['word'], outputs: ['word_f'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Reshape', inputs: ['word_f', 'out_shape'], outputs: ['n_layer_cross_k'] },
      { op: 'Identity', inputs: ['n_layer_cross_k'], outputs: ['n_layer_cross_v'] },
    ],
    metadata: {
      model_type: 'whisper-tiny.en', n_mels: 80, n_audio_ctx: 1500, n_text_layer: 1, n_text_ctx: CTX, n_text_state: 4, n_vocab: VOCAB,
      ...WHISPER_SPECIALS, is_multilingual: 0, sot_sequence: String(WHISPER_SPECIALS.sot),
    },
  })
}

export function whisperDecoder(): Uint8Array {
  const cache = { type: FLOAT, shape: [1, 1, CTX, 4] } as const
  return buildModel({
    inputs: [
      { name: 'tokens', type: INT64, shape: [1, 'n'] },
      { name: 'in_n_layer_self_k_cache', ...cache },
      { name: 'in_n_layer_self_v_cache', ...cache },
      { name: 'n_layer_cross_k', type: FLOAT, shape: [1, 1, WHISPER_SLOTS, 1] },
      { name: 'n_layer_cross_v', type: FLOAT, shape: [1, 1, WHISPER_SLOTS, 1] },
      { name: 'offset', type: INT64, shape: [1] },
    ],
    outputs: [
      { name: 'logits', type: FLOAT, shape: [1, 'n', VOCAB] },
      { name: 'out_n_layer_self_k_cache', ...cache },
      { name: 'out_n_layer_self_v_cache', ...cache },
    ],
    initializers: [
      { name: 'one_i', type: INT64, dims: [], values: [1] },
      { name: 'two_i', type: INT64, dims: [], values: [2] },
      { name: 'zero_i', type: INT64, dims: [], values: [0] },
      { name: 'last_slot', type: INT64, dims: [], values: [WHISPER_SLOTS - 1] },
      { name: 'flat', type: INT64, dims: [1], values: [-1] },
      { name: 'half', type: FLOAT, dims: [], values: [0.5] },
      { name: 'one_f', type: FLOAT, dims: [], values: [1] },
      { name: 'eot', type: INT64, dims: [1], values: [WHISPER_SPECIALS.eot] },
      { name: 'depth', type: INT64, dims: [], values: [VOCAB] },
      { name: 'on_off', type: FLOAT, dims: [2], values: [0, 10] },
      { name: 'axis1', type: INT64, dims: [1], values: [1] },
      { name: 'vocab', type: INT64, dims: [1], values: [VOCAB] },
    ],
    nodes: [
      { op: 'Shape', inputs: ['tokens'], outputs: ['tokens_shape'] },
      { op: 'Gather', inputs: ['tokens_shape', 'one_i'], outputs: ['n'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Add', inputs: ['offset', 'n'], outputs: ['end'] },
      { op: 'Sub', inputs: ['end', 'two_i'], outputs: ['pos'] },
      { op: 'Max', inputs: ['pos', 'zero_i'], outputs: ['pos_low'] },
      { op: 'Min', inputs: ['pos_low', 'last_slot'], outputs: ['slot_index'] },
      { op: 'Reshape', inputs: ['n_layer_cross_k', 'flat'], outputs: ['slots'] },
      { op: 'Gather', inputs: ['slots', 'slot_index'], outputs: ['slot'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Greater', inputs: ['pos', 'last_slot'], outputs: ['past'] },
      { op: 'Less', inputs: ['slot', 'half'], outputs: ['silent'] },
      { op: 'Or', inputs: ['past', 'silent'], outputs: ['done'] },
      { op: 'Sub', inputs: ['slot', 'one_f'], outputs: ['word_f'] },
      { op: 'Cast', inputs: ['word_f'], outputs: ['word'], attributes: [{ name: 'to', i: INT64 }] },
      { op: 'Where', inputs: ['done', 'eot', 'word'], outputs: ['next'] },
      { op: 'OneHot', inputs: ['next', 'depth', 'on_off'], outputs: ['hot'] },
      { op: 'Unsqueeze', inputs: ['hot', 'axis1'], outputs: ['hot3'] },
      { op: 'Concat', inputs: ['tokens_shape', 'vocab'], outputs: ['logits_shape'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Expand', inputs: ['hot3', 'logits_shape'], outputs: ['logits'] },
      { op: 'Identity', inputs: ['in_n_layer_self_k_cache'], outputs: ['out_n_layer_self_k_cache'] },
      { op: 'Identity', inputs: ['in_n_layer_self_v_cache'], outputs: ['out_n_layer_self_v_cache'] },
    ],
    metadata: { model_type: 'whisper-tiny.en' },
  })
}

/** tokens.txt as sherpa-onnx's Whisper archives write it: base64 of each token's bytes, then its id. */
export function whisperTokens(): string {
  const names = [...WHISPER_WORDS.map((w) => ` ${w}`), '<|endoftext|>', '<|startoftranscript|>', '<|notimestamps|>', '<|transcribe|>', '<|translate|>', '<|nospeech|>', '<|blank|>', '<|unused|>']
  return names.map((t, i) => `${Buffer.from(t).toString('base64')} ${i}`).join('\n') + '\n'
}

/** Centre frequency of Whisper's mel bin k (80 Slaney-scale bins from 0 to 8 kHz, as librosa makes them). */
export function whisperMelBinHz(k: number): number {
  const toMel = (f: number) => (f < 1000 ? (3 * f) / 200 : 15 + (27 * Math.log(f / 1000)) / Math.log(6.4))
  const toHz = (m: number) => (m < 15 ? (200 * m) / 3 : 1000 * Math.exp(((m - 15) * Math.log(6.4)) / 27))
  return toHz((toMel(8000) * (k + 1)) / 81)
}

/** 16 kHz audio saying `words` (1..8) in the slots: a tone in the middle of each word's band. */
export function whisperSpeech(words: readonly number[]): Float32Array {
  const rate = 16_000
  const tone = Math.round(0.2 * rate)
  const gap = Math.round(0.15 * rate)
  const out = new Float32Array(gap + words.length * (tone + gap) + rate)
  words.forEach((k, i) => {
    const at = gap + i * (tone + gap)
    const w = (2 * Math.PI * whisperMelBinHz((k - 1) * 10 + 5)) / rate
    for (let n = 0; n < tone; n++) out[at + n] = 0.3 * Math.sin(w * n) * Math.min(1, n / 80, (tone - n) / 80)
  })
  return out
}
