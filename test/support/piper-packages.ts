import { readFile, rename, rm, truncate, writeFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { unpackArchive } from '../../src/models/unpack.js'

/**
 * Piper voices built by rhasspy/piper's own VitsModel and export_onnx.py (scripts/models/piper/build.sh), kept as
 * release-style archives, one voice folder each.
 */
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models', 'piper')
export const SINGLE = 'en_US-parla_test-medium'
export const TWO = 'en_US-parla_test_2spk-medium'
export const EXTERNAL = 'en_US-parla_test_external-medium'
export const archiveOf = (name: string) => join(FIXTURES, `${name}.tar.gz`)

/** Unpacks the fixture voice `name` into `modelsDir/as` (its files keep the published names). */
export async function unpackPiper(modelsDir: string, name: string, as = name): Promise<string> {
  const work = join(modelsDir, `.unpack-${as}`)
  const folder = await unpackArchive(archiveOf(name), work)
  await rename(folder, join(modelsDir, as))
  await rm(work, { recursive: true, force: true })
  return join(modelsDir, as)
}

type Config = Record<string, unknown> & { inference: Record<string, number>; audio: Record<string, number> }

/** A copy of `name` as `as` whose config `edit` changes. */
export async function piperVariant(modelsDir: string, name: string, as: string, edit: (c: Config) => void): Promise<string> {
  const dir = await unpackPiper(modelsDir, name, as)
  const file = join(dir, `${name}.onnx.json`)
  const config = JSON.parse(await readFile(file, 'utf8')) as Config
  edit(config)
  await writeFile(file, JSON.stringify(config, null, 4))
  return dir
}

/** Deterministic: no noise in the durations or in the sound, so two runs give the same samples. */
const quiet = (c: Config) => { c.inference = { ...c.inference, noise_scale: 0, noise_w: 0 } }

/** The good voices and the variants made from them, each the way a published config or a user gets one wrong. */
export async function writePiperPackages(modelsDir: string): Promise<void> {
  await unpackPiper(modelsDir, SINGLE)
  await unpackPiper(modelsDir, TWO)
  await unpackPiper(modelsDir, EXTERNAL)
  // Like rhasspy/piper's own etc/test_voice.onnx.json: only espeak.voice says the language.
  await piperVariant(modelsDir, SINGLE, 'piper-no-language', (c) => { delete c.language })
  await piperVariant(modelsDir, TWO, 'piper-2spk-no-map', (c) => { c.speaker_id_map = {} })
  await piperVariant(modelsDir, SINGLE, 'piper-quiet', quiet)
  await piperVariant(modelsDir, SINGLE, 'piper-quiet-slow', (c) => { quiet(c); c.inference.length_scale = 1.5 })
  await piperVariant(modelsDir, SINGLE, 'piper-quiet-22500', (c) => { quiet(c); c.audio.sample_rate = 22_500 })
  await piperVariant(modelsDir, TWO, 'piper-2spk-quiet', quiet)
  // Broken: what the runtime cannot run, found from the files.
  await piperVariant(modelsDir, SINGLE, 'piper-no-espeak', (c) => { delete c.espeak })
  await piperVariant(modelsDir, SINGLE, 'piper-wrong-map', (c) => { (c.phoneme_id_map as Record<string, number[]>)['ʘ'] = [300] })
  await piperVariant(modelsDir, SINGLE, 'piper-wrong-speakers', (c) => { c.num_speakers = 2; c.speaker_id_map = { ann: 0, bob: 1 } })
  const cut = await unpackPiper(modelsDir, SINGLE, 'piper-truncated')
  const model = join(cut, `${SINGLE}.onnx`)
  await truncate(model, Math.floor((await stat(model)).size / 2))
  const lost = await unpackPiper(modelsDir, EXTERNAL, 'piper-external-lost')
  await rm(join(lost, `${EXTERNAL}.onnx.data`))
}
