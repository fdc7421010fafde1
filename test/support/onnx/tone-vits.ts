import { buildModel, FLOAT, INT64, type ModelSpec } from './graph.js'

/**
 * A synthetic VITS/Piper acoustic model: instead of speech, each input token id becomes a tone of
 * `BASE_HZ + STEP_HZ * id` lasting `TOKEN_SECONDS * length_scale` (scales[1], so `speed` shows), raised by
 * `SPEAKER_HZ * sid` for the speaker. Inputs and outputs are exactly Piper's export
 * (`input`, `input_lengths`, `scales`, optional `sid` → `output`), so the real runtime runs it as a Piper voice.
 */
export const TOKEN_SECONDS = 0.04
export const BASE_HZ = 200
export const STEP_HZ = 50
/** Each speaker id moves every tone up by this much (half a token step), so the speaker survives gain changes. */
export const SPEAKER_HZ = 25

/**
 * `work`: layers of a 256-wide dense network run per token whose result is multiplied by zero before it
 * touches the tones: compute shaped like an acoustic model (for the benchmark), without changing the output.
 */
export function toneVitsModel(options: { readonly sampleRate: number; readonly speakers: number; readonly metadata?: Record<string, string | number>; readonly work?: number }): Uint8Array {
  const sr = options.sampleRate
  const multi = options.speakers > 1
  const layers = options.work ?? 0
  const WIDTH = 256
  const weights = (name: string, rows: number) => ({ name, type: FLOAT, dims: [rows, WIDTH], values: Array.from({ length: rows * WIDTH }, (_, i) => Math.sin(i * 12.9898) * 0.05) }) as const
  const work: ModelSpec['nodes'] = layers === 0 ? [{ op: 'Identity', inputs: ['hz_pre'], outputs: ['hz_work'] }] : [
    { op: 'Unsqueeze', inputs: ['ids_f', 'axis2'], outputs: ['h_in'] },
    { op: 'MatMul', inputs: ['h_in', 'w_in'], outputs: ['h0'] },
    ...Array.from({ length: layers }, (_, i) => [
      { op: 'MatMul', inputs: [`h${i}`, 'w_hidden'], outputs: [`m${i}`] },
      { op: 'Tanh', inputs: [`m${i}`], outputs: [`h${i + 1}`] },
    ]).flat(),
    { op: 'ReduceSum', inputs: [`h${layers}`, 'axis2'], outputs: ['h_sum'], attributes: [{ name: 'keepdims', i: 0 }] },
    { op: 'Mul', inputs: ['h_sum', 'zero_f'], outputs: ['h_zero'] },
    { op: 'Add', inputs: ['hz_pre', 'h_zero'], outputs: ['hz_work'] },
  ]
  const spec: ModelSpec = {
    inputs: [
      { name: 'input', type: INT64, shape: [1, 'phonemes'] },
      { name: 'input_lengths', type: INT64, shape: [1] },
      { name: 'scales', type: FLOAT, shape: [3] },
      ...(multi ? [{ name: 'sid', type: INT64, shape: [1] }] : []),
    ],
    outputs: [{ name: 'output', type: FLOAT, shape: [1, 1, 'time'] }],
    initializers: [
      { name: 'one', type: INT64, dims: [], values: [1] },
      { name: 'seg', type: FLOAT, dims: [], values: [TOKEN_SECONDS * sr] },
      { name: 'zero_f', type: FLOAT, dims: [], values: [0] },
      { name: 'one_f', type: FLOAT, dims: [], values: [1] },
      { name: 'step', type: FLOAT, dims: [], values: [STEP_HZ] },
      { name: 'base', type: FLOAT, dims: [], values: [BASE_HZ] },
      { name: 'omega', type: FLOAT, dims: [], values: [(2 * Math.PI) / sr] },
      { name: 'axis2', type: INT64, dims: [1], values: [2] },
      { name: 'out_shape', type: INT64, dims: [3], values: [1, 1, -1] },
      { name: 'speaker_hz', type: FLOAT, dims: [], values: [SPEAKER_HZ] },
      { name: 'amp', type: FLOAT, dims: [], values: [0.3] },
      ...(layers > 0 ? [weights('w_in', 1), weights('w_hidden', WIDTH)] : []),
    ],
    nodes: [
      { op: 'Cast', inputs: ['input'], outputs: ['ids_f'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Mul', inputs: ['ids_f', 'step'], outputs: ['hz_step'] },
      { op: 'Add', inputs: ['hz_step', 'base'], outputs: ['hz_pre'] },
      ...work,
      { op: 'Identity', inputs: ['hz_work'], outputs: ['hz0'] },
      ...(multi
        ? [
            { op: 'Cast', inputs: ['sid'], outputs: ['sid_f'], attributes: [{ name: 'to', i: FLOAT }] },
            { op: 'Mul', inputs: ['sid_f', 'speaker_hz'], outputs: ['shift'] },
            { op: 'Add', inputs: ['hz0', 'shift'], outputs: ['hz'] },
          ]
        : [{ op: 'Identity', inputs: ['hz0'], outputs: ['hz'] }]),
      { op: 'Mul', inputs: ['hz', 'omega'], outputs: ['w'] },
      { op: 'Unsqueeze', inputs: ['w', 'axis2'], outputs: ['w3'] },
      { op: 'Gather', inputs: ['scales', 'one'], outputs: ['length_scale'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Mul', inputs: ['length_scale', 'seg'], outputs: ['len_raw'] },
      { op: 'Floor', inputs: ['len_raw'], outputs: ['len'] },
      { op: 'Range', inputs: ['zero_f', 'len', 'one_f'], outputs: ['t'] },
      { op: 'Mul', inputs: ['w3', 't'], outputs: ['phase'] },
      { op: 'Sin', inputs: ['phase'], outputs: ['wave'] },
      { op: 'Mul', inputs: ['wave', 'amp'], outputs: ['scaled'] },
      { op: 'Reshape', inputs: ['scaled', 'out_shape'], outputs: ['output'] },
    ],
    ...(options.metadata && { metadata: options.metadata }),
  }
  return buildModel(spec)
}

/**
 * Reads the token ids back from the tones, one per `segmentSamples` (a segment of 40 ms at speed 1 resolves
 * the 25 Hz speaker step), and the speaker from the half-step. `maxId` bounds the search.
 */
export function decodeTones(samples: Float32Array, sampleRate: number, segmentSamples: number, maxId = 160): { ids: number[]; speakers: number[] } {
  const ids: number[] = []
  const speakers: number[] = []
  for (let at = 0; at + segmentSamples <= samples.length; at += segmentSamples) {
    const seg = samples.subarray(at, at + segmentSamples)
    let best = -1
    let bestPower = 0
    for (let k = 0; k <= maxId * 2 + 1; k++) {
      const w = (2 * Math.PI * (BASE_HZ + SPEAKER_HZ * k)) / sampleRate
      let re = 0
      let im = 0
      for (let i = 0; i < seg.length; i++) {
        re += seg[i]! * Math.cos(w * i)
        im += seg[i]! * Math.sin(w * i)
      }
      const power = re * re + im * im
      if (power > bestPower) [best, bestPower] = [k, power]
    }
    ids.push(Math.floor(best / 2))
    speakers.push(best % 2)
  }
  return { ids, speakers }
}
