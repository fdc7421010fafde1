import type { Command } from 'commander'
import type { ParlaClient } from './client.js'
import { addConnectionOptions, withConnection, type ConnectionOptions } from './connection.js'
import { CliError, EXIT } from './exit.js'
import { StatusLine } from './status-line.js'
import { modelForm } from '../api/fish/model-form.js'
import { fileBlob, formFields, printModel, type VoiceModel } from './voice-files.js'

interface CreateOptions extends ConnectionOptions {
  title: string
  texts?: string[]
  description?: string
  tags?: string
  visibility?: string
  cover?: string
  wait: boolean
  json?: boolean
}

/** How often training is looked at while waiting. */
const POLL_MS = 500

export function registerVoiceCreate(voices: Command): void {
  addConnectionOptions(voices.command('create')
    .description('create a voice model from audio files and wait until it is trained')
    .argument('<files...>', 'reference recordings of one speaker (10 to 30 s of clean speech works best)')
    .requiredOption('--title <title>', 'a name for the voice')
    .option('--texts <text...>', 'what each file says, in the same order (improves cloning)')
    .option('--description <text>')
    .option('--tags <list>', 'comma-separated tags')
    .option('--visibility <v>', 'private (default), unlist or public')
    .option('--cover <image>', 'cover image file')
    .option('--no-wait', 'return as soon as the model is created, without waiting for training')
    .option('--json', 'print the model as JSON'))
    .action((files: string[], options: CreateOptions) => withConnection(options, (client) => create(client, files, options)))
}

async function create(client: ParlaClient, files: string[], options: CreateOptions): Promise<void> {
  if (options.texts && options.texts.length !== files.length) {
    throw new CliError(EXIT.usage, `got ${options.texts.length} --texts for ${files.length} file(s); give one transcript per file, in order`)
  }
  const voices = []
  for (const path of files) voices.push(await fileBlob(path))
  const form = modelForm({ voices, texts: options.texts ?? [], ...(await formFields(options)) })
  let model = await client.json<VoiceModel>('/model', { method: 'POST', body: form })
  const status = new StatusLine(process.stderr)
  status.update(`created ${model._id}: ${model.state}`)
  while (options.wait && (model.state === 'created' || model.state === 'training')) {
    await new Promise((r) => setTimeout(r, POLL_MS))
    model = await client.json<VoiceModel>(`/model/${encodeURIComponent(model._id)}`)
    status.update(`${model._id}: ${model.state}`)
  }
  status.done(`${model._id}: ${model.state}${model.state_reason ? ` (${model.state_reason})` : ''}`)
  if (options.json) process.stdout.write(`${JSON.stringify(model, null, 2)}\n`)
  else printModel(model)
  if (model.state === 'failed') process.exitCode = EXIT.failed
}
