import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { TtsLoadConfig } from '../engines/neural/protocol.js'
import { readOnnxInitializers } from './onnx-initializers.js'
import type { ModelPackage } from './types.js'

/**
 * A Kokoro package as sherpa-onnx publishes it (`kokoro-en-v0_19`, `kokoro-multi-lang-v1_0`, `kokoro-*-v1_1-zh`):
 * `model.onnx` whose metadata says `model_type: kokoro`, `voices.bin` (per speaker `style_dim` float32 style
 * vectors), `tokens.txt`, eSpeak NG data, and from metadata `version` 2 on (the multi-language models) the
 * `lexicon-*.txt` files and the text-normalisation rule files `*.fst`. Everything the runtime would refuse, or
 * exit on, is checked here so the package is listed broken with the reason instead of failing requests.
 */
export async function detectKokoro(
  base: { readonly id: string; readonly path: string },
  files: readonly string[],
  onnx: string,
  meta: Readonly<Record<string, string>>,
  packageLanguages: readonly string[],
  dataDir: () => Promise<string>,
): Promise<ModelPackage> {
  const { path } = base
  const speakers = (meta.speaker_names ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const names = speakers.length ? speakers : ['default']
  const multiLanguage = Number(meta.version ?? 1) >= 2
  const lexicons = lexiconFiles(files)
  const ruleFsts = files.filter((f) => f.endsWith('.fst')).sort()
  const languages = multiLanguage ? [...new Set(names.map(speakerLanguage).filter((l): l is string => !!l))] : []
  const problem = await kokoroProblem(path, onnx, files, meta, names.length, multiLanguage, lexicons)
  return {
    ...base, family: 'kokoro', kind: 'tts',
    ...(Number(meta.sample_rate) > 0 && { sampleRate: Number(meta.sample_rate) }),
    languages: languages.length ? languages : packageLanguages,
    speakers: names,
    ...(multiLanguage && { speakerLanguages: names.map((n) => { const l = speakerLanguage(n); return l ? [l] : packageLanguages }) }),
    ...(multiLanguage && { multiLanguage: true }),
    runnable: problem === undefined,
    ...(problem !== undefined && { note: problem, broken: true }),
    prepare: async (): Promise<TtsLoadConfig> => ({
      kokoro: {
        model: join(path, onnx), voices: join(path, 'voices.bin'), tokens: join(path, 'tokens.txt'), dataDir: await dataDir(),
        ...(lexicons.length > 0 && { lexicon: lexicons.map((f) => join(path, f)).join(',') }),
      },
      ...(ruleFsts.length > 0 && { ruleFsts: ruleFsts.map((f) => join(path, f)).join(',') }),
    }),
  }
}

/** `lexicon.txt` and `lexicon-*.txt`, English ones first (the runtime keeps the first pronunciation of a word). */
const lexiconFiles = (files: readonly string[]) => files.filter((f) => /^lexicon(-.+)?\.txt$/.test(f))
  .sort((a, b) => Number(!/-en\b|-us-|-gb-/.test(a)) - Number(!/-en\b|-us-|-gb-/.test(b)) || a.localeCompare(b))

/**
 * Kokoro's voice names start with a letter for the language (hexgrad/Kokoro-82M's VOICES.md: `af_heart` American
 * English, `bf_emma` British English, `zf_xiaobei` Mandarin, …).
 */
const SPEAKER_LANGUAGES: Readonly<Record<string, string>> = {
  a: 'en-us', b: 'en-gb', e: 'es', f: 'fr', h: 'hi', i: 'it', j: 'ja', p: 'pt-br', z: 'zh',
}
const speakerLanguage = (name: string) => /^[a-z][fm]_/.test(name) ? SPEAKER_LANGUAGES[name[0]!] : undefined

async function kokoroProblem(path: string, onnx: string, files: readonly string[], meta: Readonly<Record<string, string>>, speakers: number, multiLanguage: boolean, lexicons: readonly string[]): Promise<string | undefined> {
  if (!files.includes('voices.bin')) return 'voices.bin is missing (a Kokoro model needs the style vectors of its speakers next to model.onnx)'
  if (!files.includes('tokens.txt')) return 'tokens.txt is missing'
  const dims = (meta.style_dim ?? '').split(',').map(Number)
  if (dims.length !== 3 || dims.some((d) => !Number.isInteger(d) || d <= 0) || dims[1] !== 1) {
    return `the model's metadata has no usable style_dim ("${meta.style_dim ?? ''}"; sherpa-onnx's export writes e.g. 510,1,256)`
  }
  const expected = Number(meta.n_speakers ?? speakers) * dims[0]! * dims[2]! * 4
  const actual = (await stat(join(path, 'voices.bin'))).size
  if (actual !== expected) {
    return `voices.bin has ${actual} bytes but the model's metadata (n_speakers ${meta.n_speakers ?? speakers}, style_dim ${meta.style_dim}) needs ${expected}: it belongs to another model or is damaged`
  }
  const tokens = (await readFile(join(path, 'tokens.txt'), 'utf8')).split('\n')
  const bad = tokens.findIndex((line) => line !== '' && !/^.+ \d+$/u.test(line.replace(/\r$/, '')))
  if (bad >= 0) return `tokens.txt line ${bad + 1} is not "<symbol> <id>"`
  // The ids must fit the model's symbol table (hexgrad/kokoro's text encoder embedding): a tokens.txt of another
  // model would index past it, which the runtime finds only when speaking.
  const maxId = Math.max(...tokens.map((line) => Number(/ (\d+)\r?$/.exec(line)?.[1] ?? -1)))
  const weights = await readOnnxInitializers(join(path, onnx)).catch((err: unknown) => err instanceof Error ? err : new Error(String(err)))
  if (weights instanceof Error) return `${weights.message.replace(join(path, onnx), onnx)}: copy or download it again`
  const symbols = weights.find((w) => w.name.endsWith('text_encoder.embedding.weight'))?.dims[0]
  if (symbols !== undefined && maxId >= symbols) return `tokens.txt uses ids up to ${maxId} but the model knows ${symbols} symbols: it belongs to another model`
  if (!tokens.some((line) => line.startsWith('  ')) && multiLanguage) return 'tokens.txt has no entry for the space symbol, which a multi-language Kokoro model needs'
  if (multiLanguage && lexicons.length === 0) {
    return 'a multi-language Kokoro model (metadata version 2) needs its lexicon files (lexicon-us-en.txt, lexicon-zh.txt, … as in sherpa-onnx\'s kokoro-multi-lang archives) in the folder'
  }
  return undefined
}
