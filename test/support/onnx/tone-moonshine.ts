import { buildModel, FLOAT, INT32, INT64 } from './graph.js'

/**
 * A synthetic Moonshine (preprocess, encode, uncached and cached decode: the four graphs and the loop of
 * sherpa-onnx's offline-moonshine-model.cc and its greedy search). The audio holds up to `MOONSHINE_SLOTS`
 * tones at `toneSpeech`'s times (tone-ctc.ts: 0.15 s, then 0.2 s tone + 0.15 s pause per word); the word in
 * a slot is which of 8 frequencies (`moonshineHz`) it holds.
 *
 * - preprocess (`audio` (1, N), any length) → the power of each frequency in each slot's tone (1, SLOTS, 8), by
 *   correlating with sines and cosines that fit a whole number of periods in the 0.2 s tone.
 * - encode (`features`, `features_len`) → (1, 64, 1): per slot the word number 1..8, or 0 when silent;
 *   zero frames after, so the runtime's length bound (frames × 384 / 16000 × 6 tokens) allows 9 tokens.
 * - uncached/cached decode (`tokens` (1, 1), `encoder_out`, `seq_len` (1) [, state]) → logits (1, 1, vocab)
 *   for the word at position `seq_len - 1` (token id = word + 2), or end-of-text, and the state.
 */
export const MOONSHINE_SLOTS = 8
export const MOONSHINE_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']
const RATE = 16_000
const TONE = 3200
const STRIDE = 5600
const FIRST = 2400
const FRAMES = 64
const VOCAB = 11
const EOS = 2

/** The frequency of word k (1..8): a whole number of periods in 0.2 s, so the words do not leak into each other. */
export const moonshineHz = (k: number) => 300 + 200 * (k - 1)

export function moonshinePreprocess(): Uint8Array {
  const basis = (fn: (x: number) => number) => Array.from({ length: TONE * 8 }, (_, i) => fn((2 * Math.PI * moonshineHz((i % 8) + 1) * Math.floor(i / 8)) / RATE))
  return buildModel({
    inputs: [{ name: 'audio', type: FLOAT, shape: [1, 'N'] }],
    outputs: [{ name: 'features', type: FLOAT, shape: [1, MOONSHINE_SLOTS, 8] }],
    initializers: [
      { name: 'starts', type: INT64, dims: [1], values: [FIRST] },
      { name: 'ends', type: INT64, dims: [1], values: [FIRST + MOONSHINE_SLOTS * STRIDE] },
      { name: 'axis1', type: INT64, dims: [1], values: [1] },
      { name: 'slots_shape', type: INT64, dims: [3], values: [1, MOONSHINE_SLOTS, STRIDE] },
      { name: 'zero', type: INT64, dims: [1], values: [0] },
      { name: 'tone', type: INT64, dims: [1], values: [TONE] },
      { name: 'axis2', type: INT64, dims: [1], values: [2] },
      { name: 'padding', type: FLOAT, dims: [1, FIRST + MOONSHINE_SLOTS * STRIDE], values: new Array(FIRST + MOONSHINE_SLOTS * STRIDE).fill(0) },
      { name: 'cos', type: FLOAT, dims: [TONE, 8], values: basis(Math.cos) },
      { name: 'sin', type: FLOAT, dims: [TONE, 8], values: basis(Math.sin) },
    ],
    nodes: [
      // Parla sends the speech span its VAD found, which ends soon after the last tone: pad to the slots' end.
      { op: 'Concat', inputs: ['audio', 'padding'], outputs: ['padded'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'Slice', inputs: ['padded', 'starts', 'ends', 'axis1'], outputs: ['used'] },
      { op: 'Reshape', inputs: ['used', 'slots_shape'], outputs: ['slots'] },
      { op: 'Slice', inputs: ['slots', 'zero', 'tone', 'axis2'], outputs: ['tones'] },
      { op: 'MatMul', inputs: ['tones', 'cos'], outputs: ['re'] },
      { op: 'MatMul', inputs: ['tones', 'sin'], outputs: ['im'] },
      { op: 'Mul', inputs: ['re', 're'], outputs: ['re2'] },
      { op: 'Mul', inputs: ['im', 'im'], outputs: ['im2'] },
      { op: 'Add', inputs: ['re2', 'im2'], outputs: ['features'] },
    ],
  })
}

export function moonshineEncoder(): Uint8Array {
  return buildModel({
    inputs: [
      { name: 'features', type: FLOAT, shape: [1, MOONSHINE_SLOTS, 8] },
      { name: 'features_len', type: INT32, shape: [1] },
    ],
    outputs: [{ name: 'encoder_out', type: FLOAT, shape: [1, FRAMES, 1] }],
    initializers: [
      // A tone of amplitude 0.3 scores ~(0.3 × 3200 / 2)² = 230,400; silence 0.
      { name: 'silence', type: FLOAT, dims: [1, MOONSHINE_SLOTS, 1], values: new Array(MOONSHINE_SLOTS).fill(1000) },
      { name: 'shape', type: INT64, dims: [3], values: [1, MOONSHINE_SLOTS, 1] },
      { name: 'pads', type: INT64, dims: [6], values: [0, 0, 0, 0, FRAMES - MOONSHINE_SLOTS, 0] },
    ],
    nodes: [
      { op: 'Concat', inputs: ['silence', 'features'], outputs: ['scores'], attributes: [{ name: 'axis', i: 2 }] },
      { op: 'ArgMax', inputs: ['scores'], outputs: ['word'], attributes: [{ name: 'axis', i: 2 }, { name: 'keepdims', i: 1 }] },
      { op: 'Cast', inputs: ['word'], outputs: ['word_f'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Pad', inputs: ['word_f', 'pads'], outputs: ['encoder_out'] },
    ],
  })
}

export function moonshineDecoder(cached: boolean): Uint8Array {
  return buildModel({
    inputs: [
      { name: 'tokens', type: INT32, shape: [1, 1] },
      { name: 'encoder_out', type: FLOAT, shape: [1, FRAMES, 1] },
      { name: 'seq_len', type: INT32, shape: [1] },
      ...(cached ? [{ name: 'in_state', type: FLOAT, shape: [1] }] : []),
    ],
    outputs: [
      { name: 'logits', type: FLOAT, shape: [1, 1, VOCAB] },
      { name: 'out_state', type: FLOAT, shape: [1] },
    ],
    initializers: [
      { name: 'one', type: INT64, dims: [1], values: [1] },
      { name: 'flat', type: INT64, dims: [1], values: [-1] },
      { name: 'half', type: FLOAT, dims: [1], values: [0.5] },
      { name: 'two_f', type: FLOAT, dims: [1], values: [2] },
      { name: 'eos', type: INT64, dims: [1], values: [EOS] },
      { name: 'depth', type: INT64, dims: [], values: [VOCAB] },
      { name: 'on_off', type: FLOAT, dims: [2], values: [0, 10] },
      { name: 'logits_shape', type: INT64, dims: [3], values: [1, 1, VOCAB] },
      { name: 'zero_state', type: FLOAT, dims: [1], values: [0] },
    ],
    nodes: [
      { op: 'Cast', inputs: ['seq_len'], outputs: ['len'], attributes: [{ name: 'to', i: INT64 }] },
      { op: 'Sub', inputs: ['len', 'one'], outputs: ['pos'] },
      { op: 'Reshape', inputs: ['encoder_out', 'flat'], outputs: ['frames'] },
      { op: 'Gather', inputs: ['frames', 'pos'], outputs: ['word'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Less', inputs: ['word', 'half'], outputs: ['silent'] },
      { op: 'Add', inputs: ['word', 'two_f'], outputs: ['id_f'] },
      { op: 'Cast', inputs: ['id_f'], outputs: ['id'], attributes: [{ name: 'to', i: INT64 }] },
      { op: 'Where', inputs: ['silent', 'eos', 'id'], outputs: ['next'] },
      { op: 'OneHot', inputs: ['next', 'depth', 'on_off'], outputs: ['hot'] },
      { op: 'Reshape', inputs: ['hot', 'logits_shape'], outputs: ['logits'] },
      { op: 'Identity', inputs: [cached ? 'in_state' : 'zero_state'], outputs: ['out_state'] },
    ],
  })
}

/** tokens.txt: `<unk>`, `<s>`, `</s>`, then the words with SentencePiece's word-start mark. */
export const moonshineTokens = () => ['<unk>', '<s>', '</s>', ...MOONSHINE_WORDS.map((w) => `▁${w}`)].map((t, i) => `${t} ${i}`).join('\n') + '\n'

/** 16 kHz audio saying `words` (1..8), padded to the length the preprocessor reads. */
export function moonshineSpeech(words: readonly number[]): Float32Array {
  const out = new Float32Array(FIRST + MOONSHINE_SLOTS * STRIDE + RATE)
  words.forEach((k, i) => {
    const at = FIRST + i * STRIDE
    const w = (2 * Math.PI * moonshineHz(k)) / RATE
    for (let n = 0; n < TONE; n++) out[at + n] = 0.3 * Math.sin(w * n)
  })
  return out
}
