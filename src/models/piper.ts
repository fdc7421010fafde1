import { copyFile, mkdir, readFile, rename, stat, writeFile, appendFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path'
import { espeakDataDir } from '../engines/tts/neural/espeak-data.js'
import type { TtsLoadConfig } from '../engines/neural/protocol.js'
import { languageCode } from './languages.js'
import { readOnnxInitializers, type OnnxInitializer } from './onnx-initializers.js'
import { metadataBytes } from './onnx-metadata.js'
import type { ModelPackage } from './types.js'

/** The parts of a Piper voice's `*.onnx.json` Parla reads (as piper's training export writes it). */
export interface PiperVoiceConfig {
  readonly audio?: { readonly sample_rate?: number }
  readonly espeak?: { readonly voice?: string }
  readonly language?: { readonly code?: string; readonly name_english?: string }
  readonly num_speakers?: number
  readonly speaker_id_map?: Readonly<Record<string, number>>
  readonly phoneme_id_map?: Readonly<Record<string, readonly number[]>>
  readonly inference?: { readonly noise_scale?: number; readonly length_scale?: number; readonly noise_w?: number }
}

export async function readPiperConfig(path: string): Promise<PiperVoiceConfig> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as PiperVoiceConfig
  if (!parsed.phoneme_id_map || !parsed.audio?.sample_rate) throw new Error(`${path}: not a Piper voice config (no phoneme_id_map or audio.sample_rate)`)
  return parsed
}

/**
 * A Piper voice folder (`x.onnx` + `x.onnx.json`, as rhasspy/piper's export writes it). What the runtime would
 * refuse or exit on, and what would make it speak wrongly, is checked from the files (the config, and the
 * model's weight table without loading it), so the package is listed broken with what to fix.
 */
export async function detectPiper(base: { readonly id: string; readonly path: string }, onnx: string, cache: string): Promise<ModelPackage> {
  const model = join(base.path, onnx)
  const config = await readPiperConfig(`${model}.json`)
  const weights = await readOnnxInitializers(model).catch((err: unknown) => err instanceof Error ? err : new Error(String(err)))
  const problem = weights instanceof Error
    ? `${weights.message.replace(model, onnx)}: copy or download it again`
    : await piperProblem(base.path, onnx, config, weights)
  const initializers = weights instanceof Error ? [] : weights
  return {
    ...base, family: 'piper', kind: 'tts', languages: piperLanguages(config), speakers: piperSpeakers(config, initializers), sampleRate: config.audio!.sample_rate!,
    runnable: problem === undefined,
    ...(problem !== undefined && { note: problem, broken: true }),
    prepare: () => preparePiper(model, config, { dataFiles: externalDataFiles(initializers), speakers: piperSpeakers(config, initializers).length }, join(cache, base.id), cache),
  }
}

export const piperLanguages = (c: PiperVoiceConfig): string[] => {
  const code = languageCode(c.language?.code ?? c.espeak?.voice ?? '')
  return code ? [code] : []
}

/**
 * Speaker names in speaker-id order: from `speaker_id_map`; a multi-speaker model without one (or ids the
 * map leaves out) has its speakers named by their index. The count is the largest of the config's
 * `num_speakers`, the map's ids and the model's speaker embedding (`emb_g`).
 */
export const piperSpeakers = (c: PiperVoiceConfig, initializers: readonly OnnxInitializer[] = []): string[] => {
  const map = Object.entries(c.speaker_id_map ?? {}).filter(([, id]) => Number.isInteger(id) && id >= 0)
  const embedded = initializers.find((i) => i.name === 'emb_g.weight')?.dims[0] ?? 1
  const count = Math.max(c.num_speakers ?? 1, embedded, ...map.map(([, id]) => id + 1))
  if (count <= 1) return ['default']
  const names = Array.from({ length: count }, (_, i) => String(i))
  for (const [name, id] of map) names[id] = name
  return names
}

/** The phoneme symbol table's size: `enc_p.emb`, which piper's export names `sid` in single-speaker models. */
const symbolCount = (initializers: readonly OnnxInitializer[]) =>
  (initializers.find((i) => i.name === 'enc_p.emb.weight') ?? initializers.find((i) => i.name === 'sid' && i.dims.length === 2))?.dims[0]

const externalDataFiles = (initializers: readonly OnnxInitializer[]) =>
  [...new Set(initializers.flatMap((i) => i.location === undefined ? [] : [i.location]))]

async function piperProblem(folder: string, onnx: string, config: PiperVoiceConfig, initializers: readonly OnnxInitializer[]): Promise<string | undefined> {
  if (!config.espeak?.voice) {
    return `${onnx}.json has no espeak.voice: Piper voices are spoken from eSpeak NG phonemes, and the runtime needs the eSpeak NG voice this one was trained with; add e.g. "espeak": {"voice": "en-us"} (the voice's published .onnx.json has it)`
  }
  for (const location of externalDataFiles(initializers)) {
    if (isAbsolute(location) || normalize(location).split(sep).includes('..')) return `${onnx} keeps its weights outside its folder (${location}): save it with its external data next to it`
    if (!await stat(join(folder, location)).then((s) => s.isFile(), () => false)) {
      return `${onnx} keeps its weights in ${location}, which is missing: put ${location} next to ${onnx}`
    }
  }
  // The config's speakers must be the model's: a speaker id beyond its speaker embedding fails every call.
  // Only said of graphs with piper's own weight names (its text encoder `enc_p`), where a missing `emb_g` means one speaker.
  const configured = Math.max(config.num_speakers ?? 1, ...Object.values(config.speaker_id_map ?? {}).map((id) => id + 1))
  const modelSpeakers = initializers.find((i) => i.name === 'emb_g.weight')?.dims[0] ?? 1
  if (initializers.some((i) => i.name.startsWith('enc_p.')) && configured > modelSpeakers) {
    return `${onnx}.json names ${configured} speakers but the model has ${modelSpeakers === 1 ? 'one speaker' : `${modelSpeakers}`}: the config belongs to another voice; use the .onnx.json published with this .onnx`
  }
  const symbols = symbolCount(initializers)
  const highest = Math.max(-1, ...Object.values(config.phoneme_id_map ?? {}).flat())
  if (symbols !== undefined && highest >= symbols) {
    return `${onnx}.json's phoneme_id_map uses ids up to ${highest} but the model knows ${symbols} phoneme symbols: the config belongs to another voice; use the .onnx.json published with this .onnx`
  }
  return undefined
}

// sherpa-onnx's C API reads a 0 noise scale as "not set" and uses its default (0.667, 0.8) instead; a value
// this small is 0 for the audio and still a float32 above 0, so it reaches the model.
const scale = (value: number | undefined) => value === 0 ? 1e-30 : value

/**
 * A bare Piper voice becomes what sherpa-onnx runs: a copy of the model with the metadata it reads
 * appended (and its external data files beside it, at the names the model refers to), `tokens.txt` from
 * `phoneme_id_map`, and eSpeak NG's data. Written once into `cacheDir` (temporary names, then renamed), and
 * rebuilt when the voice's files change.
 */
export async function preparePiper(
  onnx: string, config: PiperVoiceConfig, { dataFiles, speakers }: { readonly dataFiles: readonly string[]; readonly speakers: number }, cacheDir: string, espeakCache: string,
): Promise<TtsLoadConfig> {
  await mkdir(cacheDir, { recursive: true })
  const sources = [onnx, ...dataFiles.map((f) => join(dirname(onnx), f))]
  const stamp = (await Promise.all(sources.map(async (f) => { const s = await stat(f); return `${basename(f)}:${s.size}-${s.mtimeMs}` }))).join(' ')
  const model = join(cacheDir, 'model.onnx')
  const tokens = join(cacheDir, 'tokens.txt')
  const stampFile = join(cacheDir, 'source')
  const current = await readFile(stampFile, 'utf8').catch(() => '')
  if (current !== stamp) {
    const meta = metadataBytes({
      // The runtime exits when `language` is missing or empty; Piper's own test voice has only espeak.voice.
      model_type: 'vits', comment: 'piper', language: config.language?.name_english || config.language?.code || config.espeak!.voice!,
      voice: config.espeak!.voice!, sample_rate: config.audio!.sample_rate!, n_speakers: speakers, add_blank: 0,
    })
    for (const file of dataFiles) {
      await mkdir(dirname(join(cacheDir, file)), { recursive: true })
      await copyFile(join(dirname(onnx), file), join(cacheDir, `${file}.tmp`))
      await rename(join(cacheDir, `${file}.tmp`), join(cacheDir, file))
    }
    await copyFile(onnx, `${model}.tmp`)
    await appendFile(`${model}.tmp`, meta)
    await rename(`${model}.tmp`, model)
    // sherpa-onnx reads one code point per token line; Piper's map is code point → [id].
    const lines = Object.entries(config.phoneme_id_map!)
      .filter(([sym, ids]) => [...sym].length === 1 && (sym === ' ' || !/\s/u.test(sym)) && ids.length > 0)
      .map(([sym, ids]) => `${sym} ${ids[0]}`)
    await writeFile(`${tokens}.tmp`, `${lines.join('\n')}\n`)
    await rename(`${tokens}.tmp`, tokens)
    await writeFile(stampFile, stamp)
  }
  const inference = config.inference ?? {}
  return {
    vits: {
      model, tokens, dataDir: await espeakDataDir(espeakCache),
      ...(inference.length_scale !== undefined && { lengthScale: inference.length_scale }),
      ...(inference.noise_scale !== undefined && { noiseScale: scale(inference.noise_scale) }),
      ...(inference.noise_w !== undefined && { noiseScaleW: scale(inference.noise_w) }),
    },
  }
}
