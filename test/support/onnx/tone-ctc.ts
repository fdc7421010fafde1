import { buildModel, FLOAT, INT64 } from './graph.js'

/**
 * A synthetic NeMo CTC acoustic model. The 80 log-mel bins are grouped into 8 bands of 10; token b+1 scores
 * the loudest bin of band b, and token 0 (blank) the mean of all bins plus a bias, so silence decodes as
 * blank and a tone in band b "says" token b+1. Inputs, outputs and metadata are those of NeMo CTC exports as
 * sherpa-onnx reads them (`audio_signal` (B, 80, T), `length` → `logprobs` (B, T, vocab)).
 */
export const BANDS = 8
export const CTC_VOCAB = BANDS + 1
export const BLANK_BIAS = 3

export function toneCtcModel(language?: string): Uint8Array {
  return buildModel({
    inputs: [
      { name: 'audio_signal', type: FLOAT, shape: ['N', 80, 'T'] },
      { name: 'length', type: INT64, shape: ['N'] },
    ],
    outputs: [{ name: 'logprobs', type: FLOAT, shape: ['N', 'T', CTC_VOCAB] }],
    initializers: [
      { name: 'bands_shape', type: INT64, dims: [4], values: [0, BANDS, 10, -1] },
      { name: 'axis1', type: INT64, dims: [1], values: [1] },
      { name: 'axis2', type: INT64, dims: [1], values: [2] },
      { name: 'bias', type: FLOAT, dims: [], values: [BLANK_BIAS] },
    ],
    nodes: [
      { op: 'Reshape', inputs: ['audio_signal', 'bands_shape'], outputs: ['banded'] },
      { op: 'ReduceMax', inputs: ['banded'], outputs: ['band_max'], attributes: [{ name: 'axes', ints: [2] }, { name: 'keepdims', i: 0 }] },
      { op: 'ReduceMean', inputs: ['audio_signal'], outputs: ['mean'], attributes: [{ name: 'axes', ints: [1] }, { name: 'keepdims', i: 1 }] },
      { op: 'Add', inputs: ['mean', 'bias'], outputs: ['blank'] },
      { op: 'Concat', inputs: ['blank', 'band_max'], outputs: ['bct'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'Transpose', inputs: ['bct'], outputs: ['logprobs'], attributes: [{ name: 'perm', ints: [0, 2, 1] }] },
    ],
    metadata: { vocab_size: CTC_VOCAB, subsampling_factor: 1, normalize_type: '', model_type: 'EncDecCTCModelBPE', ...(language && { language }) },
  })
}

/** Centre frequency of kaldi-style mel bin k (80 bins, 20 Hz to 8000 - 400 Hz at 16 kHz, as sherpa-onnx's fbank). */
export function melBinHz(k: number, low = 20, high = 7600): number {
  const mel = (f: number) => 1127 * Math.log(1 + f / 700)
  const inv = (m: number) => 700 * (Math.exp(m / 1127) - 1)
  const step = (mel(high) - mel(low)) / (80 + 1)
  return inv(mel(low) + step * (k + 1))
}

/** 16 kHz audio saying `tokens` (1..8): a 0.2 s tone in the middle of each token's band, 0.15 s of silence around each. */
export function toneSpeech(tokens: readonly number[], sampleRate = 16_000): Float32Array {
  const tone = Math.round(0.2 * sampleRate)
  const gap = Math.round(0.15 * sampleRate)
  const out = new Float32Array(gap + tokens.length * (tone + gap))
  tokens.forEach((k, i) => {
    const at = gap + i * (tone + gap)
    const w = (2 * Math.PI * melBinHz((k - 1) * 10 + 5)) / sampleRate
    for (let n = 0; n < tone; n++) out[at + n] = 0.3 * Math.sin(w * n) * Math.min(1, n / 80, (tone - n) / 80)
  })
  return out
}
