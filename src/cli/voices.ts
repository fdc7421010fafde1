import type { Command } from 'commander'
import type { ParlaClient } from './client.js'
import { addConnectionOptions, withConnection, type ConnectionOptions } from './connection.js'
import { EXIT_HELP } from './exit.js'
import { modelForm } from '../api/fish/model-form.js'
import { formFields, printModel, type VoiceModel } from './voice-files.js'
import { registerVoiceCreate } from './voices-create.js'

const EXAMPLES = `
Examples:
  parla voices list --self
  parla voices show festival-slt
  parla voices create me.wav --title "My voice" --texts "What I say in me.wav"
  parla voices update <id> --title "New name" --tags calm,narration --visibility unlist --cover face.png
  parla voices rm <id>
${EXIT_HELP}`

const id = (s: string) => encodeURIComponent(s)

interface EditOptions extends ConnectionOptions {
  title?: string
  description?: string
  tags?: string
  visibility?: string
  cover?: string
  json?: boolean
}

export function registerVoiceCommands(program: Command): void {
  const voices = program.command('voices').description('list, show, create, update and delete voice models').addHelpText('after', EXAMPLES)

  addConnectionOptions(voices.command('list').description('list the voice models this key can see')
    .option('--self', 'only your own')
    .option('--search <text>', 'titles containing this text')
    .option('--tag <tag>', 'only models with this tag')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'print the models as JSON'))
    .action((options: ConnectionOptions & { self?: boolean; search?: string; tag?: string; limit: string; json?: boolean }) =>
      withConnection(options, async (client) => {
        const items = await list(client, options)
        if (options.json) return void process.stdout.write(`${JSON.stringify(items, null, 2)}\n`)
        process.stdout.write(['ID', 'TITLE', 'STATE', 'VISIBILITY', 'TAGS'].join('\t') + '\n')
        for (const m of items) process.stdout.write(`${[m._id, m.title, m.state, m.visibility, m.tags.join(',')].join('\t')}\n`)
      }))

  addConnectionOptions(voices.command('show').description('show one voice model').argument('<id>').option('--json', 'print the model as JSON'))
    .action((modelId: string, options: ConnectionOptions & { json?: boolean }) => withConnection(options, async (client) => {
      const model = await client.json<VoiceModel>(`/model/${id(modelId)}`)
      if (options.json) process.stdout.write(`${JSON.stringify(model, null, 2)}\n`)
      else printModel(model)
    }))

  registerVoiceCreate(voices)

  addConnectionOptions(voices.command('update').description('change title, description, tags, visibility or cover of your voice model')
    .argument('<id>')
    .option('--title <title>')
    .option('--description <text>')
    .option('--tags <list>', 'comma-separated; replaces the tags')
    .option('--visibility <v>', 'private, unlist or public')
    .option('--cover <image>', 'cover image file')
    .option('--json', 'print the updated model as JSON'))
    .action((modelId: string, options: EditOptions) => withConnection(options, async (client) => {
      const form = modelForm(await formFields(options))
      await client.request(`/model/${id(modelId)}`, { method: 'PATCH', body: form })
      const model = await client.json<VoiceModel>(`/model/${id(modelId)}`)
      if (options.json) process.stdout.write(`${JSON.stringify(model, null, 2)}\n`)
      else process.stdout.write(`updated ${model._id} (${model.title})\n`)
    }))

  addConnectionOptions(voices.command('rm').description('delete your voice models and their files').argument('<id...>'))
    .action((ids: string[], options: ConnectionOptions) => withConnection(options, async (client) => {
      for (const modelId of ids) {
        await client.request(`/model/${id(modelId)}`, { method: 'DELETE' })
        process.stdout.write(`deleted ${modelId}\n`)
      }
    }))
}

async function list(client: ParlaClient, options: { self?: boolean; search?: string; tag?: string; limit: string }): Promise<VoiceModel[]> {
  const limit = Math.max(1, Number(options.limit) || 100)
  const out: VoiceModel[] = []
  for (let page = 1; out.length < limit; page++) {
    const query = new URLSearchParams({ page_size: String(Math.min(100, limit)), page_number: String(page), sort_by: 'created_at' })
    if (options.self) query.set('self', 'true')
    if (options.search) query.set('title', options.search)
    if (options.tag) query.set('tag', options.tag)
    const result = await client.json<{ total: number; items: VoiceModel[] }>(`/model?${query}`)
    out.push(...result.items)
    if (result.items.length === 0 || out.length >= result.total) break
  }
  return out.slice(0, limit)
}
