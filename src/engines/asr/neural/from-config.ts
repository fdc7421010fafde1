import { detectPackage } from '../../../models/detect.js'
import type { NeuralSettings } from '../../tts/neural/settings.js'
import type { AsrEngine } from '../types.js'
import { createNeuralAsrEngine } from './index.js'

/**
 * The ASR engine the `asrEngine` setting names: `pocketsphinx` or empty for the classic engine (undefined
 * here), else the id of an ASR package in `modelsDir`. A wrong id stops startup with a message saying what
 * is installed.
 */
export async function asrEngineFromSettings(id: string, settings: NeuralSettings): Promise<AsrEngine | undefined> {
  if (id === '' || id === 'pocketsphinx') return undefined
  const pkg = await detectPackage(settings.modelsDir, id).catch(() => null)
  if (!pkg || pkg.kind !== 'asr' || !pkg.runnable) {
    const why = !pkg ? `no model package '${id}' in ${settings.modelsDir}` : pkg.kind !== 'asr' ? `'${id}' is a ${pkg.kind} model` : `'${id}' cannot run here: ${pkg.note}`
    throw new Error(`asrEngine: ${why}; see 'parla models list' (or use asrEngine=pocketsphinx)`)
  }
  return createNeuralAsrEngine(pkg, { processes: settings.processes, threads: settings.threads })
}
