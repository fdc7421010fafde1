import { copyFile, mkdir, readFile, rename, stat, writeFile, appendFile } from 'node:fs/promises'
import { join } from 'node:path'
import { espeakDataDir } from '../engines/tts/neural/espeak-data.js'
import type { TtsLoadConfig } from '../engines/neural/protocol.js'
import { languageCode } from './languages.js'
import { metadataBytes } from './onnx-metadata.js'

/** The parts of a Piper voice's `*.onnx.json` Parla reads (as piper's training export writes it). */
export interface PiperVoiceConfig {
  readonly audio?: { readonly sample_rate?: number }
  readonly espeak?: { readonly voice?: string }
  readonly language?: { readonly code?: string }
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

export const piperLanguages = (c: PiperVoiceConfig): string[] => {
  const code = languageCode(c.language?.code ?? c.espeak?.voice ?? '')
  return code ? [code] : []
}

export const piperSpeakers = (c: PiperVoiceConfig): string[] => {
  const map = c.speaker_id_map ?? {}
  const names = Object.entries(map).sort((a, b) => a[1] - b[1]).map(([name]) => name)
  return names.length > 1 ? names : ['default']
}

/**
 * A bare Piper voice becomes what sherpa-onnx runs: a copy of the model with the metadata it reads
 * appended, `tokens.txt` from `phoneme_id_map`, and eSpeak NG's data. Written once into `cacheDir`
 * (temporary names, then renamed), and rebuilt when the voice file changes.
 */
export async function preparePiper(onnx: string, config: PiperVoiceConfig, cacheDir: string, espeakCache: string): Promise<TtsLoadConfig> {
  await mkdir(cacheDir, { recursive: true })
  const source = await stat(onnx)
  const stamp = `${source.size}-${source.mtimeMs}`
  const model = join(cacheDir, 'model.onnx')
  const tokens = join(cacheDir, 'tokens.txt')
  const stampFile = join(cacheDir, 'source')
  const current = await readFile(stampFile, 'utf8').catch(() => '')
  if (current !== stamp) {
    const speakers = config.num_speakers ?? 1
    const meta = metadataBytes({
      model_type: 'vits', comment: 'piper', language: config.language?.code ?? '', voice: config.espeak?.voice ?? 'en-us',
      sample_rate: config.audio!.sample_rate!, n_speakers: speakers > 1 ? speakers : 1, add_blank: 0,
    })
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
      ...(inference.noise_scale !== undefined && { noiseScale: inference.noise_scale }),
      ...(inference.noise_w !== undefined && { noiseScaleW: inference.noise_w }),
    },
  }
}
