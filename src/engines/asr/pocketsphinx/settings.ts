/** Where Debian's `pocketsphinx-en-us` puts the US English model. */
export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us'

/**
 * Decoder argument sets, measured in docs/decisions.md ("Decoder settings"). `accurate` is the library default;
 * `fast` is the aggressive pruning set from the engines survey; `balanced` (the default) computes the GMMs
 * every other frame and caps active HMMs, which measured both faster and no less accurate than `accurate`.
 */
export const DECODER_PRESETS = {
  accurate: [],
  balanced: ['-ds', '2', '-maxhmmpf', '3000'],
  fast: [
    '-ds', '2', '-topn', '2', '-maxwpf', '5', '-maxhmmpf', '3000', '-pl_window', '10',
    '-lpbeam', '1e-20', '-lponlybeam', '1e-20', '-bestpath', 'no',
  ],
} as const satisfies Record<string, readonly string[]>

export type DecoderPreset = keyof typeof DECODER_PRESETS

export const DEFAULT_PRESET: DecoderPreset = 'balanced'

/** Flag/value pairs with later flags replacing earlier ones (cmd_ln rejects a flag given twice). */
export function mergeArgs(...lists: readonly (readonly string[])[]): string[] {
  const merged = new Map<string, string>()
  for (const list of lists) {
    for (let i = 0; i + 1 < list.length; i += 2) {
      merged.delete(list[i]!)
      merged.set(list[i]!, list[i + 1]!)
    }
  }
  return [...merged].flat()
}

/**
 * Argv of an aligning decoder (`align` in decoder.ts): the full dictionary and no language model, since
 * each call brings its grammar. A higher silence probability than the default lets the search put a
 * pause between words instead of stretching the next word over it (measured on festival's speech).
 */
export function alignerArgs(modelDir = MODEL_DIR): string[] {
  return [
    '-hmm', `${modelDir}/en-us`, '-dict', `${modelDir}/cmudict-en-us.dict`,
    '-remove_silence', 'no', '-silprob', '0.1',
  ]
}

/**
 * Full argv for `cmd_ln_parse_r`. `-remove_silence no` is not optional: with the library's default the
 * front end drops frames it thinks are silence and every word time after them shifts (the "+56 s on a
 * 60 s utterance" symptom); Parla's own VAD already cuts the silences out. `dictPath` defaults to the
 * model's full dictionary; the engine passes the one cut down to the LM's words (dictionary.ts).
 */
export function decoderArgs(
  preset: DecoderPreset, modelDir = MODEL_DIR, extra: readonly string[] = [],
  dictPath = `${modelDir}/cmudict-en-us.dict`,
): string[] {
  const base = [
    '-hmm', `${modelDir}/en-us`,
    '-lm', `${modelDir}/en-us.lm.bin`,
    '-dict', dictPath,
    '-remove_silence', 'no',
  ]
  return mergeArgs(base, DECODER_PRESETS[preset], extra)
}
