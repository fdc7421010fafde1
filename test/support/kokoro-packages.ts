import { cp, rm, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { metadataBytes, readOnnxMetadata } from '../../src/models/onnx-metadata.js'

/** Kokoro packages built from the upstream projects' own code (scripts/models/kokoro/build.sh). */
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models', 'kokoro')
export const V019 = 'kokoro-en-v0_19'
export const V10 = 'kokoro-multi-lang-v1_0'

/** The two good packages and the broken variants made from them, each the way a user gets one wrong. */
export async function writeKokoroPackages(modelsDir: string): Promise<void> {
  await cp(join(FIXTURES, V019), join(modelsDir, V019), { recursive: true })
  await cp(join(FIXTURES, V10), join(modelsDir, V10), { recursive: true })
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-no-voices'), { recursive: true })
  await rm(join(modelsDir, 'kokoro-no-voices', 'voices.bin'))
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-short-voices'), { recursive: true })
  await truncate(join(modelsDir, 'kokoro-short-voices', 'voices.bin'), 510 * 256 * 4 + 4)
  await cp(join(FIXTURES, V10), join(modelsDir, 'kokoro-no-lexicon'), { recursive: true })
  await rm(join(modelsDir, 'kokoro-no-lexicon', 'lexicon-us-en.txt'))
  await rm(join(modelsDir, 'kokoro-no-lexicon', 'lexicon-zh.txt'))
  // Files that match the metadata but that the runtime refuses: the model's graph is gone, its metadata kept.
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-refused'), { recursive: true })
  const meta = await readOnnxMetadata(join(FIXTURES, V019, 'model.onnx'))
  await writeFile(join(modelsDir, 'kokoro-refused', 'model.onnx'), metadataBytes(meta))
}
