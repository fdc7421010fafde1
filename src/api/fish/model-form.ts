/**
 * The `/model` create and update bodies as clients send them, and the model as clients read it back. Pure
 * (FormData and Blob only), so the CLI under Node and the browser playground (web/, bundled by esbuild)
 * build the same multipart body from the same field names.
 */

/** A file for a multipart field: its bytes and the name the server sees. */
export interface NamedBlob {
  readonly blob: Blob
  readonly name: string
}

/** Fields of `POST /model` and `PATCH /model/{id}`; a field left out is not sent. */
export interface ModelFormFields {
  /** Reference recordings (create only), each with its transcript in `texts` at the same index. */
  readonly voices?: readonly NamedBlob[]
  readonly texts?: readonly string[]
  readonly title?: string
  readonly description?: string
  /** Comma-separated. */
  readonly tags?: string
  readonly visibility?: string
  readonly cover?: NamedBlob
}

export function modelForm(fields: ModelFormFields): FormData {
  const form = new FormData()
  for (const { blob, name } of fields.voices ?? []) form.append('voices', blob, name)
  for (const text of fields.texts ?? []) form.append('texts', text)
  if (fields.title !== undefined) form.append('title', fields.title)
  if (fields.description !== undefined) form.append('description', fields.description)
  if (fields.tags !== undefined) form.append('tags', fields.tags)
  if (fields.visibility !== undefined) form.append('visibility', fields.visibility)
  if (fields.cover) form.append('cover_image', fields.cover.blob, fields.cover.name)
  return form
}

/** A voice model as `GET /model/{id}` returns it (the fields clients read). */
export interface VoiceModel {
  _id: string
  title: string
  description: string
  state: string
  state_reason?: string
  visibility: string
  tags: string[]
  languages: string[]
  cover_image: string
  created_at: string
  author: { nickname: string }
  samples: { title: string; text: string; audio: string }[]
  quality: { audios: { filename: string; duration_ms: number; quality_passed: boolean; quality_reason: string }[] }
}
