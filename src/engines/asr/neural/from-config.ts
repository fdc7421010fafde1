import type { Logger } from '../../../logger.js'
import { detectPackage } from '../../../models/detect.js'
import type { NeuralSettings } from '../../tts/neural/settings.js'
import { createPocketsphinxEngine } from '../pocketsphinx/index.js'
import { createRoutedAsrEngine } from '../routed.js'
import type { AsrEngine } from '../types.js'
import { createNeuralAsrEngine } from './index.js'
import { acquireModelChecks } from '../../neural/model-checks.js'
import { filesStamp } from '../../neural/load-checks.js'

/**
 * The ASR engine the `asrEngine` setting names: empty or `pocketsphinx` for the classic engine (undefined
 * here), the id of an ASR package in `modelsDir`, or per-language entries `<language>=<engine>` with `*` for
 * the rest (e.g. `de=sherpa-onnx-nemo-de *=pocketsphinx`). A wrong id stops startup saying what is installed.
 */
export async function asrEngineFromSettings(spec: string, settings: NeuralSettings, pocketsphinxWorkers: number, logger?: Logger): Promise<AsrEngine | undefined> {
  const entries = spec.split(/[\s,;]+/).filter(Boolean)
  if (entries.length === 0 || (entries.length === 1 && entries[0] === 'pocketsphinx')) return undefined
  const made = new Map<string, AsrEngine>()
  const engineNamed = async (id: string): Promise<AsrEngine> => {
    const existing = made.get(id)
    if (existing) return existing
    const engine = id === 'pocketsphinx' ? createPocketsphinxEngine(pocketsphinxWorkers > 0 ? { workers: pocketsphinxWorkers } : {}) : await neuralEngine(id, settings, logger)
    made.set(id, engine)
    return engine
  }
  if (entries.length === 1 && !entries[0]!.includes('=')) return engineNamed(entries[0]!)
  const routes: { language: string; engine: AsrEngine }[] = []
  for (const entry of entries) {
    const m = /^([a-z]{2,3}(?:-[a-z0-9]{2,4})?|\*)=(.+)$/i.exec(entry)
    if (!m) throw new Error(`asrEngine: cannot read "${entry}"; write <language>=<engine>, e.g. de=sherpa-onnx-nemo-de or *=pocketsphinx`)
    routes.push({ language: m[1]!.toLowerCase(), engine: await engineNamed(m[2]!) })
  }
  return createRoutedAsrEngine(routes)
}

async function neuralEngine(id: string, settings: NeuralSettings, logger?: Logger): Promise<AsrEngine> {
  const pkg = await detectPackage(settings.modelsDir, id).catch(() => null)
  if (!pkg || pkg.kind !== 'asr' || !pkg.runnable) {
    const why = !pkg ? `no model package '${id}' in ${settings.modelsDir}` : pkg.kind !== 'asr' ? `'${id}' is a ${pkg.kind} model` : `'${id}' cannot run here: ${pkg.note}`
    throw new Error(`asrEngine: ${why}; see 'parla models list' (or use asrEngine=pocketsphinx)`)
  }
  // Loaded once in a check process now (unless these files were checked); transcriptions wait for the verdict.
  const { checks, release } = acquireModelChecks(settings.modelsDir, logger)
  await checks.refresh()
  const stamp = await filesStamp(pkg.path)
  void checks.check(pkg, stamp, { asr: pkg.asr! })
  const engine = createNeuralAsrEngine(pkg, { processes: settings.processes, threads: settings.threads, ...(settings.idleSec !== undefined && { idleSec: settings.idleSec }), ...(logger && { logger }), checks, stamp })
  return {
    ...engine,
    async close() {
      release()
      await engine.close()
    },
  }
}
