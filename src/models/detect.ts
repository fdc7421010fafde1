import { readdir, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { espeakDataDir } from '../engines/tts/neural/espeak-data.js'
import { languageCode } from './languages.js'
import { detectKokoro } from './kokoro.js'
import { readOnnxMetadata } from './onnx-metadata.js'
import { detectPiper, piperSpeakers, readPiperConfig } from './piper.js'
import type { ModelPackage } from './types.js'
import { detectWhisper } from './whisper.js'
import { sileroVadAt } from './silero-vad.js'
import { detectTransducer } from './transducer.js'

/** Where Parla keeps what it derives from packages (prepared Piper copies, eSpeak NG data). */
export const CACHE_DIR = '.parla-cache'

/**
 * Recognises one entry of `modelsDir` by the layout its project publishes: a Piper voice folder
 * (`x.onnx` + `x.onnx.json`), sherpa-onnx release archives (VITS/Piper with `tokens.txt`, Kokoro with
 * `voices.bin`, ZipVoice encoder/decoder/vocoder, streaming transducers encoder/decoder/joiner, Whisper
 * `*-encoder/decoder/tokens`, Moonshine), or a whisper.cpp `ggml-*.bin`, or a Silero VAD model (`silero_vad.onnx`,
 * alone or in its folder). Returns null for anything else.
 */
export async function detectPackage(modelsDir: string, name: string): Promise<ModelPackage | null> {
  const path = join(modelsDir, name)
  const info = await stat(path)
  const vad = await sileroVadAt(modelsDir, name)
  if (vad) return vad
  if (info.isFile()) {
    if (!/^ggml-.+\.bin$/.test(name)) return null
    const lang = /\.en\b/.test(name) ? ['en'] : []
    return { id: name, family: 'whisper-ggml', kind: 'asr', path, languages: lang, speakers: [], runnable: false, note: 'whisper.cpp ggml files are recognised but Parla ships no whisper.cpp runtime yet; use a sherpa-onnx Whisper archive (docs/models.md)' }
  }
  if (!info.isDirectory()) return null
  const files = await readdir(path)
  const has = (f: string) => files.includes(f)
  const find = (re: RegExp) => files.filter((f) => re.test(f)).sort((a, b) => a.length - b.length)[0]
  const cache = join(modelsDir, CACHE_DIR)
  const base = { id: name, path }

  const whisperEncoder = find(/-encoder(\.int8)?\.onnx$/)
  const whisperTokens = find(/-tokens\.txt$/)
  if (whisperEncoder && whisperTokens && find(/-decoder(\.int8)?\.onnx$/)) {
    return detectWhisper(base, { encoder: whisperEncoder, decoder: find(/-decoder(\.int8)?\.onnx$/)!, tokens: whisperTokens })
  }
  if (has('preprocess.onnx') && find(/^encode/) && find(/^uncached_decode/) && find(/^cached_decode/) && has('tokens.txt')) {
    return { ...base, family: 'moonshine', kind: 'asr', languages: ['en'], speakers: [], runnable: true, untested: UNTESTED.moonshine,
      asr: { model: { moonshine: { preprocessor: join(path, 'preprocess.onnx'), encoder: join(path, find(/^encode/)!), uncachedDecoder: join(path, find(/^uncached_decode/)!), cachedDecoder: join(path, find(/^cached_decode/)!) } }, tokens: join(path, 'tokens.txt') } }
  }
  const encoder = find(/^encoder.*\.onnx$/)
  const decoder = find(/^decoder.*\.onnx$/)
  const joiner = find(/^joiner.*\.onnx$/)
  if (encoder && decoder && joiner && has('tokens.txt')) return detectTransducer(base, { encoder, decoder, joiner })
  if (encoder && decoder && has('tokens.txt')) {
    const vocoder = find(/vocos.*\.onnx$|^vocoder.*\.onnx$/)
    // The runtime ends its process when a ZipVoice model has no lexicon, so it must be there before loading.
    const missing = vocoder === undefined ? 'a vocoder (vocos_24khz.onnx, from sherpa-onnx\'s vocoder-models release)' : has('lexicon.txt') ? undefined : 'lexicon.txt'
    return { ...base, family: 'zipvoice', kind: 'tts', languages: ['en', 'zh'], speakers: ['default'], clones: true, runnable: missing === undefined,
      ...(missing !== undefined && { note: `ZipVoice needs ${missing} in the folder` }),
      prepare: async () => ({ zipvoice: { encoder: join(path, encoder), decoder: join(path, decoder), vocoder: join(path, vocoder!), tokens: join(path, 'tokens.txt'), lexicon: join(path, 'lexicon.txt'), dataDir: await dataDir(path, files, cache) } }) }
  }
  const onnx = find(/\.onnx$/)
  if (!onnx) return null
  if ((has('voices.bin') || has('tokens.txt')) && !has(`${onnx}.json`)) {
    // The metadata decides the family: a Kokoro export missing a file is a broken Kokoro package, not VITS.
    const meta = await readOnnxMetadata(join(path, onnx))
    if (meta.model_type === 'kokoro' || has('voices.bin')) return detectKokoro(base, files, onnx, meta, langs(meta.language), () => dataDir(path, files, cache))
  }
  if (has(`${onnx}.json`) && !has('tokens.txt')) {
    return detectPiper(base, onnx, cache)
  }
  if (has('tokens.txt')) {
    const meta = await readOnnxMetadata(join(path, onnx))
    if (meta.vocab_size && meta.subsampling_factor) {
      // A NeMo CTC export (sherpa-onnx's `sherpa-onnx-nemo-*-ctc-*` archives).
      return { ...base, family: 'nemo-ctc', kind: 'asr', languages: langs(meta.language).length ? langs(meta.language) : ['en'], speakers: [], runnable: true, untested: UNTESTED.nemoCtc,
        asr: { model: { nemoCtc: { model: join(path, onnx) } }, tokens: join(path, 'tokens.txt') } }
    }
    if (!meta.sample_rate) return { ...base, family: 'vits', kind: 'tts', languages: [], speakers: [], runnable: false, note: `${onnx} has no sample_rate metadata: not a sherpa-onnx TTS export` }
    const n = Number(meta.n_speakers ?? 1)
    const named = n > 1 && has(`${onnx}.json`) ? await speakerNames(join(path, `${onnx}.json`), n) : undefined
    return { ...base, family: 'vits', kind: 'tts', sampleRate: Number(meta.sample_rate), languages: langs(meta.language), speakers: named ?? (n > 1 ? Array.from({ length: n }, (_, i) => String(i)) : ['default']), runnable: true,
      prepare: async () => ({ vits: { model: join(path, onnx), tokens: join(path, 'tokens.txt'), ...(has('lexicon.txt') ? { lexicon: join(path, 'lexicon.txt') } : { dataDir: await dataDir(path, files, cache) }) } }) }
  }
  return null
}

/**
 * Families and layouts Parla runs but whose tests use only synthetic graphs imitating their interface: no test
 * model could be built with the project's own code and ONNX export on Debian (scripts/models/, docs/models.md).
 */
const UNTESTED = {
  moonshine: 'usefulsensors/moonshine exports its ONNX files with Keras 3 on TensorFlow and tf2onnx, which Debian lacks; tested on synthetic graphs only',
  nemoCtc: 'NeMo CTC models are exported by the NeMo toolkit, which Debian lacks; tested on a synthetic model only',
} as const

/**
 * The speaker names of a Piper voice sherpa-onnx republished (`vits-piper-*` keeps the voice's `.onnx.json`), so
 * its voices are named as the same voice in Piper's own layout; undefined when the config does not name
 * exactly the model's speakers 0..n-1.
 */
async function speakerNames(configPath: string, n: number): Promise<string[] | undefined> {
  const config = await readPiperConfig(configPath).catch(() => undefined)
  const ids = Object.values(config?.speaker_id_map ?? {})
  if (config === undefined || ids.length !== n || !ids.every((id, _, all) => Number.isInteger(id) && id >= 0 && id < n && all.indexOf(id) === all.lastIndexOf(id))) return undefined
  return piperSpeakers(config)
}

const langs = (value: string | undefined) => (value ?? '').split(/[,+]/).map((v) => languageCode(v)).filter((v): v is string => !!v)

/** The package's own `espeak-ng-data` when it ships one, else Parla's. */
const dataDir = async (path: string, files: readonly string[], cache: string) =>
  files.includes('espeak-ng-data') ? join(path, 'espeak-ng-data') : espeakDataDir(cache)

export const packageIdOf = (path: string) => basename(path)
