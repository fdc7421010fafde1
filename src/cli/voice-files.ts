import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { CliError, EXIT } from './exit.js'

/** A file from disk for a multipart body; a missing file is a usage error naming it. */
export async function fileBlob(path: string): Promise<{ blob: Blob; name: string }> {
  const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(EXIT.usage, `cannot read ${path} (${err.code ?? err.message})`)
  })
  return { blob: new Blob([new Uint8Array(bytes)]), name: basename(path) }
}

export interface VoiceModel {
  _id: string
  title: string
  description: string
  state: string
  state_reason?: string
  visibility: string
  tags: string[]
  languages: string[]
  created_at: string
  author: { nickname: string }
  samples: { title: string; text: string; audio: string }[]
  quality: { audios: { filename: string; duration_ms: number; quality_passed: boolean; quality_reason: string }[] }
}

/** Fields shared by create and update, added to a multipart body when given. */
export async function appendFields(form: FormData, options: { title?: string; description?: string; tags?: string; visibility?: string; cover?: string }): Promise<void> {
  if (options.title !== undefined) form.append('title', options.title)
  if (options.description !== undefined) form.append('description', options.description)
  if (options.tags !== undefined) form.append('tags', options.tags)
  if (options.visibility !== undefined) form.append('visibility', options.visibility)
  if (options.cover !== undefined) {
    const { blob, name } = await fileBlob(options.cover)
    form.append('cover_image', blob, name)
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
