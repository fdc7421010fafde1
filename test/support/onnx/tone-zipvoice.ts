import { buildModel, FLOAT, INT64 } from './graph.js'

/**
 * A synthetic ZipVoice: text encoder, flow-matching decoder and Vocos vocoder with the inputs, outputs and
 * metadata sherpa-onnx's ZipVoice loader reads (offline-tts-zipvoice-model.cc, vocos-vocoder.cc):
 *
 * - encoder (`tokens` (1, N), `prompt_tokens` (1, M), `prompt_features_len` (1), `speed` (1)) → the text
 *   condition (1, P + frames, feat_dim): P empty frames for the prompt, then the prompt's tokens followed by
 *   the text's tokens, each a one-hot feature frame repeated `FRAMES_PER_TOKEN / speed` times. Echoing the
 *   prompt's transcript proves it arrived, tokenized, in order.
 * - decoder (`t`, `x`, `text_condition`, `speech_condition`, `guidance_scale`) → the velocity that takes any
 *   `x` (the runtime starts from noise) to the target in the remaining time, so the last Euler step lands on
 *   it exactly. The target is the text condition, doubled when the loudest mel channel of the reference audio
 *   (the speech condition) is above `HIGH_VOICE_CHANNEL`: the "voice" comes from the reference audio.
 * - vocoder (mel (1, C, T)) → magnitude and phase of each STFT frame: feature channel c with value 1 is a tone
 *   in bin `8 + 2c`, value 2 the bin above. At `ZIPVOICE_RATE` and `N_FFT` a bin is 25 Hz, so token id k
 *   sounds at `200 + 50k` Hz (+25 Hz for the high voice): the tones `decodeTones` (tone-vits.ts) reads.
 */
export const ZIPVOICE_RATE = 25_600
export const N_FFT = 1024
export const HOP = 256
export const FEAT_DIM = 100
/** 4 frames of 10 ms: a token lasts 40 ms, `TOKEN_SECONDS` of the other tone models. */
export const FRAMES_PER_TOKEN = 4
export const HIGH_VOICE_CHANNEL = 50
/** sherpa-onnx's default `feat_scale`: the runtime divides the decoder's output by it before the vocoder. */
const FEAT_SCALE = 0.1
const BINS = N_FFT / 2 + 1
/** Gain from a bin's magnitude to the tone's amplitude after the runtime's inverse STFT (measured: ~0.3). */
const GAIN = 150

export function zipvoiceEncoder(): Uint8Array {
  return buildModel({
    inputs: [
      { name: 'tokens', type: INT64, shape: [1, 'N'] },
      { name: 'prompt_tokens', type: INT64, shape: [1, 'M'] },
      { name: 'prompt_features_len', type: INT64, shape: [1] },
      { name: 'speed', type: FLOAT, shape: [1] },
    ],
    outputs: [{ name: 'text_condition', type: FLOAT, shape: [1, 'F', FEAT_DIM] }],
    initializers: [
      { name: 'depth', type: INT64, dims: [], values: [FEAT_DIM] },
      { name: 'on_off', type: FLOAT, dims: [2], values: [0, 1] },
      { name: 'frames', type: FLOAT, dims: [1], values: [FRAMES_PER_TOKEN] },
      { name: 'one_f', type: FLOAT, dims: [1], values: [1] },
      { name: 'axis2', type: INT64, dims: [1], values: [2] },
      { name: 'ones2', type: INT64, dims: [2], values: [1, 1] },
      { name: 'one', type: INT64, dims: [1], values: [1] },
      { name: 'dim', type: INT64, dims: [1], values: [FEAT_DIM] },
      { name: 'flat', type: INT64, dims: [3], values: [1, -1, FEAT_DIM] },
    ],
    nodes: [
      { op: 'Concat', inputs: ['prompt_tokens', 'tokens'], outputs: ['all'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'OneHot', inputs: ['all', 'depth', 'on_off'], outputs: ['hot'] },
      { op: 'Div', inputs: ['frames', 'speed'], outputs: ['per_raw'] },
      { op: 'Floor', inputs: ['per_raw'], outputs: ['per_floor'] },
      { op: 'Max', inputs: ['per_floor', 'one_f'], outputs: ['per_f'] },
      { op: 'Cast', inputs: ['per_f'], outputs: ['per'], attributes: [{ name: 'to', i: INT64 }] },
      { op: 'Unsqueeze', inputs: ['hot', 'axis2'], outputs: ['hot4'] },
      { op: 'Concat', inputs: ['ones2', 'per', 'dim'], outputs: ['rep_shape'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Expand', inputs: ['hot4', 'rep_shape'], outputs: ['rep4'] },
      { op: 'Reshape', inputs: ['rep4', 'flat'], outputs: ['spoken'] },
      { op: 'Concat', inputs: ['one', 'prompt_features_len', 'dim'], outputs: ['prompt_shape'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'ConstantOfShape', inputs: ['prompt_shape'], outputs: ['prompt_frames'] },
      { op: 'Concat', inputs: ['prompt_frames', 'spoken'], outputs: ['text_condition'], attributes: [{ name: 'axis', i: 1 }] },
    ],
    metadata: { model_type: 'zipvoice', use_espeak: 1 },
  })
}

export function zipvoiceDecoder(): Uint8Array {
  return buildModel({
    inputs: [
      { name: 't', type: FLOAT, shape: [1] },
      { name: 'x', type: FLOAT, shape: [1, 'F', FEAT_DIM] },
      { name: 'text_condition', type: FLOAT, shape: [1, 'F', FEAT_DIM] },
      { name: 'speech_condition', type: FLOAT, shape: [1, 'F', FEAT_DIM] },
      { name: 'guidance_scale', type: FLOAT, shape: [1] },
    ],
    outputs: [{ name: 'v', type: FLOAT, shape: [1, 'F', FEAT_DIM] }],
    initializers: [
      { name: 'one_f', type: FLOAT, dims: [1], values: [1] },
      { name: 'threshold', type: INT64, dims: [1], values: [HIGH_VOICE_CHANNEL - 1] },
    ],
    nodes: [
      { op: 'ReduceMean', inputs: ['speech_condition'], outputs: ['spectrum'], attributes: [{ name: 'axes', ints: [1] }, { name: 'keepdims', i: 0 }] },
      { op: 'ArgMax', inputs: ['spectrum'], outputs: ['loudest'], attributes: [{ name: 'axis', i: 1 }, { name: 'keepdims', i: 0 }] },
      { op: 'Greater', inputs: ['loudest', 'threshold'], outputs: ['high'] },
      { op: 'Cast', inputs: ['high'], outputs: ['high_f'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Add', inputs: ['high_f', 'one_f'], outputs: ['voice'] },
      { op: 'Mul', inputs: ['text_condition', 'voice'], outputs: ['target'] },
      { op: 'Sub', inputs: ['target', 'x'], outputs: ['diff'] },
      { op: 'Sub', inputs: ['one_f', 't'], outputs: ['left'] },
      { op: 'Div', inputs: ['diff', 'left'], outputs: ['v'] },
    ],
    metadata: { version: 1, feat_dim: FEAT_DIM, sample_rate: ZIPVOICE_RATE, n_fft: N_FFT, hop_length: HOP, window_length: N_FFT, num_mels: FEAT_DIM },
  })
}

export function zipvoiceVocoder(): Uint8Array {
  const weights = (shift: number) => {
    const w = new Array<number>(BINS * FEAT_DIM).fill(0)
    for (let c = 0; c < FEAT_DIM; c++) w[(8 + 2 * c + shift) * FEAT_DIM + c] = GAIN
    return w
  }
  return buildModel({
    inputs: [{ name: 'mels', type: FLOAT, shape: [1, FEAT_DIM, 'T'] }],
    outputs: [
      { name: 'mag', type: FLOAT, shape: [1, BINS, 'T'] },
      { name: 'x', type: FLOAT, shape: [1, BINS, 'T'] },
      { name: 'y', type: FLOAT, shape: [1, BINS, 'T'] },
    ],
    initializers: [
      { name: 'feat_scale', type: FLOAT, dims: [], values: [FEAT_SCALE] },
      { name: 'one_f', type: FLOAT, dims: [], values: [1] },
      { name: 'two_f', type: FLOAT, dims: [], values: [2] },
      { name: 'zero_f', type: FLOAT, dims: [], values: [0] },
      { name: 'w_low', type: FLOAT, dims: [BINS, FEAT_DIM], values: weights(0) },
      { name: 'w_high', type: FLOAT, dims: [BINS, FEAT_DIM], values: weights(1) },
      { name: 'two_i', type: INT64, dims: [], values: [2] },
      { name: 'axis0', type: INT64, dims: [1], values: [0] },
      // Phase advance per frame of each bin, so every bin is a continuous tone across frames.
      { name: 'advance', type: FLOAT, dims: [BINS, 1], values: Array.from({ length: BINS }, (_, k) => (2 * Math.PI * k * HOP) / N_FFT) },
    ],
    nodes: [
      { op: 'Mul', inputs: ['mels', 'feat_scale'], outputs: ['f'] },
      { op: 'Sub', inputs: ['f', 'one_f'], outputs: ['f1'] },
      { op: 'Relu', inputs: ['f1'], outputs: ['high'] },
      { op: 'Relu', inputs: ['f'], outputs: ['pos'] },
      { op: 'Mul', inputs: ['high', 'two_f'], outputs: ['high2'] },
      { op: 'Sub', inputs: ['pos', 'high2'], outputs: ['low'] },
      { op: 'MatMul', inputs: ['w_low', 'low'], outputs: ['mag_low'] },
      { op: 'MatMul', inputs: ['w_high', 'high'], outputs: ['mag_high'] },
      { op: 'Add', inputs: ['mag_low', 'mag_high'], outputs: ['mag'] },
      { op: 'Shape', inputs: ['mels'], outputs: ['shape'] },
      { op: 'Gather', inputs: ['shape', 'two_i'], outputs: ['frames_i'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Cast', inputs: ['frames_i'], outputs: ['frames'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Range', inputs: ['zero_f', 'frames', 'one_f'], outputs: ['t'] },
      { op: 'Mul', inputs: ['advance', 't'], outputs: ['phase2'] },
      { op: 'Unsqueeze', inputs: ['phase2', 'axis0'], outputs: ['phase'] },
      { op: 'Cos', inputs: ['phase'], outputs: ['x'] },
      { op: 'Sin', inputs: ['phase'], outputs: ['y'] },
    ],
    metadata: { model_type: 'vocos', n_fft: N_FFT, hop_length: HOP, win_length: N_FFT, center: 1, normalized: 0, window_type: 'hann', pad_mode: 'reflect' },
  })
}
