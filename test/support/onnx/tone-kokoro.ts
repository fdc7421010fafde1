import { buildModel, FLOAT, INT64 } from './graph.js'
import { BASE_HZ, SPEAKER_HZ, STEP_HZ, TOKEN_SECONDS } from './tone-vits.js'

/**
 * A synthetic Kokoro model with Kokoro's inputs as sherpa-onnx feeds them (`tokens` (1, N), `style` (1, 256)
 * taken from voices.bin for the speaker and text length, `speed` (1)) and one output: each token a tone as in
 * tone-vits.ts, lasting `TOKEN_SECONDS / speed`, raised by `SPEAKER_HZ * style[0]` (voices.bin holds the
 * speaker index in every style vector, see `kokoroVoices`).
 */
export const STYLE_ROWS = 510
export const STYLE_WIDTH = 256

export function toneKokoroModel(sampleRate: number, metadata: Record<string, string | number>): Uint8Array {
  return buildModel({
    inputs: [
      { name: 'tokens', type: INT64, shape: [1, 'n'] },
      { name: 'style', type: FLOAT, shape: [1, STYLE_WIDTH] },
      { name: 'speed', type: FLOAT, shape: [1] },
    ],
    outputs: [{ name: 'audio', type: FLOAT, shape: ['t'] }],
    initializers: [
      { name: 'zero_i', type: INT64, dims: [], values: [0] },
      { name: 'seg', type: FLOAT, dims: [], values: [TOKEN_SECONDS * sampleRate] },
      { name: 'zero_f', type: FLOAT, dims: [], values: [0] },
      { name: 'one_f', type: FLOAT, dims: [], values: [1] },
      { name: 'step', type: FLOAT, dims: [], values: [STEP_HZ] },
      { name: 'base', type: FLOAT, dims: [], values: [BASE_HZ] },
      { name: 'speaker_hz', type: FLOAT, dims: [], values: [SPEAKER_HZ] },
      { name: 'omega', type: FLOAT, dims: [], values: [(2 * Math.PI) / sampleRate] },
      { name: 'axis2', type: INT64, dims: [1], values: [2] },
      { name: 'flat', type: INT64, dims: [1], values: [-1] },
      { name: 'amp', type: FLOAT, dims: [], values: [0.3] },
    ],
    nodes: [
      { op: 'Cast', inputs: ['tokens'], outputs: ['ids_f'], attributes: [{ name: 'to', i: FLOAT }] },
      { op: 'Mul', inputs: ['ids_f', 'step'], outputs: ['hz_step'] },
      { op: 'Add', inputs: ['hz_step', 'base'], outputs: ['hz0'] },
      { op: 'Gather', inputs: ['style', 'zero_i'], outputs: ['style0'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'Mul', inputs: ['style0', 'speaker_hz'], outputs: ['shift'] },
      { op: 'Add', inputs: ['hz0', 'shift'], outputs: ['hz'] },
      { op: 'Mul', inputs: ['hz', 'omega'], outputs: ['w'] },
      { op: 'Unsqueeze', inputs: ['w', 'axis2'], outputs: ['w3'] },
      { op: 'Gather', inputs: ['speed', 'zero_i'], outputs: ['speed0'], attributes: [{ name: 'axis', i: 0 }] },
      { op: 'Div', inputs: ['seg', 'speed0'], outputs: ['len_raw'] },
      { op: 'Floor', inputs: ['len_raw'], outputs: ['len'] },
      { op: 'Range', inputs: ['zero_f', 'len', 'one_f'], outputs: ['t'] },
      { op: 'Mul', inputs: ['w3', 't'], outputs: ['phase'] },
      { op: 'Sin', inputs: ['phase'], outputs: ['wave'] },
      { op: 'Mul', inputs: ['wave', 'amp'], outputs: ['scaled'] },
      { op: 'Reshape', inputs: ['scaled', 'flat'], outputs: ['audio'] },
    ],
    metadata,
  })
}

/** voices.bin: for each speaker, STYLE_ROWS style vectors whose every value is the speaker index. */
export function kokoroVoices(speakers: number): Uint8Array {
  const floats = new Float32Array(speakers * STYLE_ROWS * STYLE_WIDTH)
  for (let s = 0; s < speakers; s++) floats.fill(s, s * STYLE_ROWS * STYLE_WIDTH, (s + 1) * STYLE_ROWS * STYLE_WIDTH)
  return new Uint8Array(floats.buffer)
}
