import type { Command } from 'commander'
import type { Config } from '../config/schema.js'
import { SpeechError } from '../errors.js'
import { catalogSize, filterCatalog, isInstalled, mirrored } from '../models/catalog.js'
import { addConfigFlags } from './config-flags.js'

type Run = (options: Record<string, unknown>, body: (modelsDir: string, config: Config) => Promise<void>) => Promise<void>

const size = (bytes: number | undefined) => (bytes === undefined ? '?' : bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`)

/** `parla models catalog [--json] [--kind tts|asr|vad] [--language xx]`: the packages `pull <name>` can fetch. */
export function registerCatalogCommand(models: Command, run: Run): void {
  addConfigFlags(models.command('catalog').description('list the well-known model packages \'parla models pull <name>\' fetches'))
    .option('--json', 'machine-readable: one JSON array')
    .option('--kind <kind>', 'tts, asr or vad')
    .option('--language <code>', 'only packages that speak this language (e.g. de, en-gb)')
    .action(async (options) => {
      const { json, kind, language, ...rest } = options as { json?: boolean; kind?: string; language?: string }
      await run(rest, async (dir, config) => {
        if (kind !== undefined && kind !== 'tts' && kind !== 'asr' && kind !== 'vad') throw new SpeechError('bad_request', `--kind must be tts, asr or vad, not ${kind}`)
        const entries = filterCatalog({ ...(kind && { kind }), ...(language && { language }) })
        const rows = await Promise.all(entries.map(async (e) => ({ entry: e, installed: await isInstalled(e, dir) })))
        if (json) {
          const out = rows.map(({ entry, installed }) => ({
            ...entry,
            size: catalogSize(entry) ?? null,
            installed,
            urls: [...entry.files, ...(entry.extras ?? [])].map((f) => mirrored(f.url, config.modelsMirror)),
          }))
          process.stdout.write(`${JSON.stringify(out, null, 2)}\n`)
          return
        }
        process.stdout.write(`${['NAME', 'KIND', 'FAMILY', 'SIZE', 'LANGUAGES', 'LICENCE', 'INSTALLED'].join('\t')}\n`)
        for (const { entry: e, installed } of rows) {
          process.stdout.write(`${[e.name, e.kind, e.family, size(catalogSize(e)), e.languages.join(','), e.licence, installed ? 'yes' : 'no'].join('\t')}\n`)
        }
        process.stderr.write(`install one with 'parla models pull <name>'${rows.some((r) => catalogSize(r.entry) === undefined) ? '; SIZE ? : the publisher lists no size, the download is checked against what the server sends' : ''}\n`)
      })
    })
}
