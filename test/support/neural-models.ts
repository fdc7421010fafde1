import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildModel, FLOAT } from './onnx/graph.js'
import { toneVitsModel } from './onnx/tone-vits.js'
import { toneCtcModel } from './onnx/tone-ctc.js'
import { kokoroVoices, STYLE_ROWS, STYLE_WIDTH, toneKokoroModel } from './onnx/tone-kokoro.js'
import { zipvoiceDecoder, zipvoiceEncoder, zipvoiceVocoder } from './onnx/tone-zipvoice.js'
import { whisperDecoder, whisperEncoder, whisperTokens } from './onnx/tone-whisper.js'
import { moonshineDecoder, moonshineEncoder, moonshinePreprocess, moonshineTokens } from './onnx/tone-moonshine.js'

/**
 * Synthetic model packages in the layouts their projects publish, for discovery, `parla models add` and the
 * neural engine tests. The TTS models are tone models (onnx/tone-vits.ts) the real runtime runs.
 */

/** Piper's symbol table shape: pad, BOS, EOS, space, punctuation, then IPA letters (one code point each). */
export const PHONEMES = ['_', '^', '$', ' ', '!', "'", '(', ')', ',', '-', '.', ':', ';', '?',
  ...'abcdefhijklmnopqrstuvwxyzæçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʲˈˌːˑ˞βθχᵻⱱ']
export const phonemeIds = Object.fromEntries(PHONEMES.map((p, i) => [p, [i]]))

export async function writePiperVoice(modelsDir: string, name: string, options: { sampleRate?: number; speakers?: readonly string[]; language?: string; work?: number } = {}): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  const speakers = options.speakers ?? []
  const sampleRate = options.sampleRate ?? 24_000
  await writeFile(join(dir, `${name}.onnx`), toneVitsModel({ sampleRate, speakers: Math.max(1, speakers.length), ...(options.work && { work: options.work }) }))
  await writeFile(join(dir, `${name}.onnx.json`), JSON.stringify({
    audio: { sample_rate: sampleRate, quality: 'low' },
    espeak: { voice: options.language === 'de_DE' ? 'de' : 'en-us' },
    language: { code: options.language ?? 'en_US', family: 'en', region: 'US' },
    inference: { noise_scale: 0.667, length_scale: 1, noise_w: 0.8 },
    phoneme_type: 'espeak',
    phoneme_map: {},
    phoneme_id_map: phonemeIds,
    num_symbols: PHONEMES.length,
    num_speakers: Math.max(1, speakers.length),
    speaker_id_map: Object.fromEntries(speakers.map((s, i) => [s, i])),
    piper_version: '1.0.0',
  }, null, 2))
  return dir
}

const tokensTxt = () => PHONEMES.map((p, i) => `${p} ${i}`).join('\n') + '\n'

/** A sherpa-onnx `vits-piper-*` release folder: model with sherpa's metadata, tokens.txt (espeak-ng-data omitted: Parla supplies its own). */
export async function writeSherpaVits(modelsDir: string, name: string, speakers = 1): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  const metadata = { model_type: 'vits', comment: 'piper', language: 'English', voice: 'en-us', n_speakers: speakers, sample_rate: 24_000, add_blank: 0 }
  await writeFile(join(dir, `${name.replace(/^vits-piper-/, '')}.onnx`), toneVitsModel({ sampleRate: 24_000, speakers, metadata }))
  await writeFile(join(dir, 'tokens.txt'), tokensTxt())
  return dir
}

/** A tiny valid ONNX graph carrying only metadata, for layouts whose inference this test does not run. */
const stub = (metadata: Record<string, string | number>) => buildModel({
  inputs: [{ name: 'x', type: FLOAT, shape: [1] }],
  outputs: [{ name: 'y', type: FLOAT, shape: [1] }],
  nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
  metadata,
})

/**
 * A sherpa-onnx `kokoro-en-v0_19` release: model.onnx (a tone model with Kokoro's inputs and metadata),
 * voices.bin, tokens.txt. Its `espeak-ng-data/` is left out unless `withEspeakFolder` (then empty, for layout
 * checks only): Parla supplies eSpeak NG's data.
 */
export async function writeKokoroLayout(modelsDir: string, name: string, withEspeakFolder = false): Promise<void> {
  const dir = join(modelsDir, name)
  await mkdir(withEspeakFolder ? join(dir, 'espeak-ng-data') : dir, { recursive: true })
  const metadata = { model_type: 'kokoro', language: 'English', sample_rate: 24_000, n_speakers: 2, speaker_names: 'af_heart,am_adam', voice: 'en-us', has_espeak: 1, version: 1, style_dim: `${STYLE_ROWS},1,${STYLE_WIDTH}` }
  await writeFile(join(dir, 'model.onnx'), toneKokoroModel(24_000, metadata))
  await writeFile(join(dir, 'voices.bin'), kokoroVoices(2))
  await writeFile(join(dir, 'tokens.txt'), tokensTxt())
}

/**
 * The token table of the synthetic ZipVoice: space, punctuation and the letters eSpeak NG's en-us voice writes,
 * one code point each (sherpa-onnx's ZipVoice front end looks each phoneme code point up), under the 100
 * feature channels of tone-zipvoice.ts.
 */
export const ZIPVOICE_TOKENS = [' ', '!', "'", ',', '-', '.', '?', ...'abdefhijklmnoprstuvwxzæçðŋɐɑɒɔəɚɛɜɡɪɫɬɹɾʃʊʌʒʔʲθᵻˈˌː']

/**
 * A sherpa-onnx `sherpa-onnx-zipvoice-*` release with the synthetic encoder, decoder and Vocos vocoder of
 * tone-zipvoice.ts: tokens.txt, lexicon.txt (one word, so the test sees the lexicon is read), and
 * `vocos_24khz.onnx` as operators add it. `espeak-ng-data/` is left out: Parla supplies eSpeak NG's data.
 */
export async function writeZipVoiceLayout(modelsDir: string, name: string): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'encoder.int8.onnx'), zipvoiceEncoder())
  await writeFile(join(dir, 'decoder.int8.onnx'), zipvoiceDecoder())
  await writeFile(join(dir, 'vocos_24khz.onnx'), zipvoiceVocoder())
  await writeFile(join(dir, 'tokens.txt'), ZIPVOICE_TOKENS.map((t, i) => `${t} ${i}`).join('\n') + '\n')
  await writeFile(join(dir, 'lexicon.txt'), 'parla p ˈ ɑ ɹ l ə\n')
  return dir
}

/** A sherpa-onnx `sherpa-onnx-whisper-tiny` release. */
export async function writeWhisperLayout(modelsDir: string, name: string, multilingual = true): Promise<void> {
  const dir = join(modelsDir, name)
  const prefix = multilingual ? 'tiny' : 'tiny.en'
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, `${prefix}-encoder.int8.onnx`), stub({ model_type: 'whisper-tiny', is_multilingual: multilingual ? 1 : 0, n_mels: 80, ...(multilingual && { all_language_codes: 'de,en,zh' }) }))
  await writeFile(join(dir, `${prefix}-decoder.int8.onnx`), stub({ model_type: 'whisper-tiny' }))
  await writeFile(join(dir, `${prefix}-tokens.txt`), 'IQ== 0\n')
}

/** A sherpa-onnx `sherpa-onnx-moonshine-tiny-en-int8` release. */
export async function writeMoonshineLayout(modelsDir: string, name: string): Promise<void> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  for (const f of ['preprocess.onnx', 'encode.int8.onnx', 'uncached_decode.int8.onnx', 'cached_decode.int8.onnx']) await writeFile(join(dir, f), stub({}))
  await writeFile(join(dir, 'tokens.txt'), 'a 0\n')
}

/** A sherpa-onnx `sherpa-onnx-whisper-tiny.en` release holding the synthetic Whisper of tone-whisper.ts. */
export async function writeToneWhisper(modelsDir: string, name: string): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'tiny.en-encoder.int8.onnx'), whisperEncoder())
  await writeFile(join(dir, 'tiny.en-decoder.int8.onnx'), whisperDecoder())
  await writeFile(join(dir, 'tiny.en-tokens.txt'), whisperTokens())
  return dir
}

/** A sherpa-onnx `sherpa-onnx-moonshine-tiny-en-int8` release holding the synthetic Moonshine of tone-moonshine.ts. */
export async function writeToneMoonshine(modelsDir: string, name: string): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'preprocess.onnx'), moonshinePreprocess())
  await writeFile(join(dir, 'encode.int8.onnx'), moonshineEncoder())
  await writeFile(join(dir, 'uncached_decode.int8.onnx'), moonshineDecoder(false))
  await writeFile(join(dir, 'cached_decode.int8.onnx'), moonshineDecoder(true))
  await writeFile(join(dir, 'tokens.txt'), moonshineTokens())
  return dir
}

/** A whisper.cpp `ggml-*.bin` file (magic `ggml` little-endian). */
export async function writeGgml(modelsDir: string, name = 'ggml-base.en.bin'): Promise<void> {
  await mkdir(modelsDir, { recursive: true })
  await writeFile(join(modelsDir, name), Buffer.from([0x6c, 0x6d, 0x67, 0x67, 0, 0, 0, 0]))
}

/** Words the tone CTC model says: token k (1..8) is the k-th word. */
export const CTC_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']

/** A sherpa-onnx NeMo CTC release folder (`model.onnx`, `tokens.txt` with BPE word starts) holding the tone CTC model. */
export async function writeNemoCtc(modelsDir: string, name: string, words: readonly string[] = CTC_WORDS, language?: string): Promise<string> {
  const dir = join(modelsDir, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'model.onnx'), toneCtcModel(language))
  await writeFile(join(dir, 'tokens.txt'), ['<blk>', ...words.map((w) => `▁${w}`)].map((t, i) => `${t} ${i}`).join('\n') + '\n')
  return dir
}
