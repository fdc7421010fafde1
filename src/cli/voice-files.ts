import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import type { ModelFormFields, VoiceModel } from '../api/fish/model-form.js'
import { CliError, EXIT } from './exit.js'

export type { VoiceModel }

/** A file from disk for a multipart body; a missing file is a usage error naming it. */
export async function fileBlob(path: string): Promise<{ blob: Blob; name: string }> {
  const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(EXIT.usage, `cannot read ${path} (${err.code ?? err.message})`)
  })
  return { blob: new Blob([new Uint8Array(bytes)]), name: basename(path) }
}

/** The fields shared by create and update, as the shared `/model` form takes them (the cover read from disk). */
export async function formFields(options: { title?: string; description?: string; tags?: string; visibility?: string; cover?: string }): Promise<ModelFormFields> {
  const { title, description, tags, visibility } = options
  return {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(tags !== undefined && { tags }),
    ...(visibility !== undefined && { visibility }),
    ...(options.cover !== undefined && { cover: await fileBlob(options.cover) }),
  }
}

export function printModel(m: VoiceModel): void {
  const lines = [
    `${m.title}  (${m._id})`,
    `state:       ${m.state}${m.state_reason ? ` — ${m.state_reason}` : ''}`,
    `visibility:  ${m.visibility}`,
    `author:      ${m.author.nickname}`,
    `tags:        ${m.tags.join(', ') || '-'}`,
    `languages:   ${m.languages.join(', ') || '-'}`,
    `created:     ${m.created_at}`,
  ]
  if (m.description) lines.push(`description: ${m.description}`)
  m.samples.forEach((s, i) => lines.push(`sample ${i}:    ${s.title}${s.text ? ` — "${s.text}"` : ''}`))
  for (const q of m.quality.audios) {
    lines.push(`quality:     ${q.filename}  ${(q.duration_ms / 1000).toFixed(1)} s  ${q.quality_passed ? 'passed' : 'not passed'}${q.quality_reason ? `  (${q.quality_reason})` : ''}`)
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}
