/** Where Debian's `pocketsphinx-en-us` puts the US English model. */
export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us'

/**
 * Decoder argument sets, measured in docs/decisions.md ("## ASR"). `accurate` is the library default;
 * `fast` is the aggressive pruning set from docs/engines.md; `balanced` is what Parla uses.
 */
export const DECODER_PRESETS = {
  accurate: [],
  balanced: ['-fwdflat', 'no'],
  fast: [
    '-ds', '2', '-topn', '2', '-maxwpf', '5', '-maxhmmpf', '3000', '-pl_window', '10',
    '-lpbeam', '1e-20', '-lponlybeam', '1e-20', '-bestpath', 'no',
  ],
} as const satisfies Record<string, readonly string[]>

export type DecoderPreset = keyof typeof DECODER_PRESETS

export const DEFAULT_PRESET: DecoderPreset = 'balanced'

/** Full argv for `cmd_ln_parse_r`: the model, quiet logging, then the preset's overrides. */
export function decoderArgs(preset: DecoderPreset, modelDir = MODEL_DIR): string[] {
  return [
    '-hmm', `${modelDir}/en-us`,
    '-lm', `${modelDir}/en-us.lm.bin`,
    '-dict', `${modelDir}/cmudict-en-us.dict`,
    '-logfn', '/dev/null',
    ...DECODER_PRESETS[preset],
  ]
}
