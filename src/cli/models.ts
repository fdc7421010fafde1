import { resolve, join } from 'node:path'
import type { Command } from 'commander'
import { SpeechError } from '../errors.js'
import { CACHE_DIR } from '../models/detect.js'
import { discoverModels } from '../models/discover.js'
import { filesStamp, LoadChecks, loadChecksFile, type LoadVerdict } from '../engines/neural/load-checks.js'
import { loadTargetOf, ModelChecks } from '../engines/neural/model-checks.js'
import { findCatalogEntry } from '../models/catalog.js'
import { pullCatalogEntry } from '../models/catalog-pull.js'
import { addModel, pullModel, removeModel } from '../models/store.js'
import type { Config } from '../config/schema.js'
import type { ModelPackage } from '../models/types.js'
import { builtinVoices } from '../engines/tts/neural/voices.js'
import { builtinModelId } from '../voices/builtin.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'
import { DownloadProgress } from './download-progress.js'
import { registerCatalogCommand } from './models-catalog.js'

/** `parla models list | catalog | add PATH | pull NAME|URL | rm ID`: the operator's neural model packages in `modelsDir`. */
export function registerModelCommands(program: Command): void {
  const models = program.command('models').description('manage neural model packages in modelsDir (docs/models.md)')

  addConfigFlags(models.command('list').description('list the model packages Parla finds and the voices they give')).action(async (options) => {
    await run(options, async (dir) => {
      const { packages, problems } = await discoverModels(dir)
      // What the runtime said when a server or `models add` loaded them (nothing is loaded here).
      const checks = new LoadChecks(loadChecksFile(dir, CACHE_DIR))
      await checks.load()
      const verdicts = new Map(await Promise.all(packages.map(async (p) => [p.id, checks.get(p.id, await filesStamp(p.path))] as const)))
      process.stdout.write(`${['ID', 'FAMILY', 'KIND', 'LANGUAGES', 'USE AS', 'STATUS'].join('\t')}\n`)
      for (const p of packages) process.stdout.write(`${[p.id, p.family, p.kind, p.languages.join(',') || '-', useAs(p), status(p, verdicts.get(p.id))].join('\t')}\n`)
      for (const p of problems) process.stdout.write(`${[p.id, '?', '?', '-', '-', `unreadable: ${p.message}`].join('\t')}\n`)
      if (packages.length + problems.length === 0) process.stderr.write(`no model packages in ${dir}; add one with 'parla models pull <name>' (names: 'parla models catalog'), 'parla models add PATH' or 'parla models pull URL'\n`)
    })
  })

  addConfigFlags(models.command('add').description('install a model folder, file or archive from this machine').argument('<path>')).action(async (path: string, options) => {
    await run(options, async (dir) => report(dir, await addModel(dir, resolve(path))))
  })

  addConfigFlags(models.command('pull').description('download, verify and install a catalog package by name (see \'parla models catalog\'), or a model archive, Piper voice (.onnx) or ggml file by URL').argument('<name-or-url>'))
    .option('--sha256 <hex>', 'expected SHA-256 of a URL\'s download; a mismatch discards it')
    .action(async (source: string, options) => {
      const { sha256, ...rest } = options as { sha256?: string }
      await run(rest, async (dir, config) => {
        const progress = new DownloadProgress(process.stderr)
        const pkg = /^[a-z][a-z0-9+.-]*:\/\//i.test(source)
          ? await pullModel(dir, source, { ...(sha256 && { sha256 }), onProgress: progress.update })
          : await pullCatalogEntry(dir, findCatalogEntry(source), { mirror: config.modelsMirror, onFile: progress.start, onProgress: progress.update })
        progress.end()
        await report(dir, pkg)
      })
    })

  registerCatalogCommand(models, run)

  addConfigFlags(models.command('rm').description('remove an installed model package').argument('<id>')).action(async (id: string, options) => {
    await run(options, async (dir) => {
      await removeModel(dir, id)
      process.stdout.write(`removed ${id}; a server using this folder stops offering its voices now (or when sent SIGHUP)\n`)
    })
  })
}

const ready = (p: ModelPackage) => (p.untested === undefined ? 'ready' : `ready, untested: ${p.untested}`)

const USE_AS = {
  tts: (p: ModelPackage) => builtinVoices([p]).map((v) => builtinModelId('neural', v.voice.id)).join(','),
  asr: (p: ModelPackage) => `asr:${p.id}`,
  vad: () => 'live VAD',
} as const
const useAs = (p: ModelPackage) => USE_AS[p.kind](p)

/** `parla models list`'s status: Parla's own file checks first, then what the runtime said when it loaded them. */
function status(p: ModelPackage, verdict: LoadVerdict | undefined): string {
  if (p.broken) return `broken: ${p.note}`
  if (!p.runnable) return `not runnable: ${p.note}`
  if (!verdict) return p.untested === undefined ? 'unchecked' : `unchecked, untested: ${p.untested}`
  return verdict.ok ? ready(p) : `broken: the runtime refused it: ${verdict.reason}`
}

/** Says what was installed, after loading it once in the runtime (as a server would), so a broken package says so now. */
async function report(dir: string, p: ModelPackage): Promise<void> {
  process.stdout.write(`installed ${p.id} (${p.family} ${p.kind}${p.languages.length ? `, ${p.languages.join(',')}` : ''})\n`)
  if (!p.runnable) return void process.stdout.write(`${p.broken ? 'broken' : 'note'}: ${p.note}\n`)
  const checks = new ModelChecks(dir)
  await checks.refresh()
  const verdict = await checks.check(p, await filesStamp(p.path), loadTargetOf(p))
  if (verdict && !verdict.ok) return void process.stdout.write(`broken: the runtime refused it: ${verdict.reason}\n`)
  if (p.kind === 'asr') process.stdout.write(`as asrEngine: ${p.id} (a setting: restart the server after changing it)\n`)
  else if (p.kind === 'vad') process.stdout.write('live transcription sessions that start from now on find speech with it\n')
  else process.stdout.write(`voices: ${useAs(p)}; a server using this folder takes them in now (or when sent SIGHUP)\n`)
  process.stdout.write('ready: the runtime loads it\n')
  if (p.untested !== undefined) process.stdout.write(`untested: ${p.untested}\n`)
}

/** Runs a models command on the configured `modelsDir`; a `SpeechError` is its message on stderr and exit code 1. */
export async function run(options: Record<string, unknown>, body: (modelsDir: string, config: Config) => Promise<void>): Promise<void> {
  const config = configFromOptions(options)
  const dir = resolve(config.modelsDir || join(config.dataDir, 'models'))
  try {
    await body(dir, config)
  } catch (err) {
    if (!(err instanceof SpeechError)) throw err
    process.stderr.write(`parla: ${err.message}\n`)
    process.exitCode = 1
  }
}
