import { MODEL_TYPES, TRAIN_MODES, VISIBILITIES } from '../../store/model-types.js'
import type { CreateModelInput, UpdateModelInput, Upload } from '../../store/model-types.js'
import type { BodyLimits, RawBody } from './model-body.js'
import { FieldReader } from './model-fields.js'

export const LIMITS = { title: 200, description: 5000, text: 10_000, tag: 64, tags: 32 } as const

/** Tags never contain commas, so every value is split on them (npm `fish-audio` joins the list with `,`). */
const splitTags = (value: string) => value.split(',')

/** Trims, drops empties and case-insensitive duplicates, and checks the limits. */
function cleanTags(r: FieldReader, tags: string[] | undefined): string[] | undefined {
  if (tags === undefined) return undefined
  const seen = new Set<string>()
  const out: string[] = []
  for (const raw of tags.flatMap(splitTags)) {
    const tag = raw.trim()
    if (tag === '' || seen.has(tag.toLowerCase())) continue
    if (tag.length > LIMITS.tag) {
      r.add(['tags', out.length], 'string_too_long', `Tag '${tag.slice(0, 20)}…' is longer than ${LIMITS.tag} characters`)
      continue
    }
    seen.add(tag.toLowerCase())
    out.push(tag)
  }
  if (out.length > LIMITS.tags) r.add(['tags'], 'too_long', `'tags' has ${out.length} tags; at most ${LIMITS.tags} are allowed`)
  return out
}

/**
 * `texts`: one transcript per voice. A single field is kept whole unless splitting it on commas gives exactly
 * one piece per voice (npm `fish-audio` sends the list comma-joined, which is ambiguous when a transcript
 * itself contains a comma).
 */
function readTexts(r: FieldReader, voices: number): string[] {
  const texts = r.list('texts', (single) => {
    if (voices <= 1 || !single.includes(',')) return [single]
    const pieces = single.split(',').map((p) => p.trim())
    return pieces.length === voices ? pieces : [single]
  })
  if (texts === undefined) return []
  const out = texts.map((t) => t.trim())
  if (out.length > Math.max(voices, 1)) {
    r.add(['texts'], 'too_long', `Got ${out.length} texts for ${voices} voice file(s); send one transcript per voice, in order`)
  }
  out.forEach((t, i) => {
    if (t.length > LIMITS.text) r.add(['texts', i], 'string_too_long', `texts[${i}] must NOT have more than ${LIMITS.text} characters`)
  })
  return out
}

/** At most one cover image. */
function readCover(r: FieldReader): Upload | undefined {
  const covers = r.files('cover_image') ?? []
  if (covers.length > 1) r.add(['cover_image'], 'value_error', "'cover_image' was sent more than once; send one image")
  return covers[0]
}

/** `POST /model` from any encoding. Defaults: type tts, train_mode fast, visibility private, enhance true. */
export function parseCreate(raw: RawBody, limits: BodyLimits): CreateModelInput {
  const r = new FieldReader(raw, limits)
  const type = r.oneOf('type', MODEL_TYPES)
  const title = r.string('title', { required: true, nonEmpty: true, max: LIMITS.title })
  const trainMode = r.oneOf('train_mode', TRAIN_MODES)
  const visibility = r.oneOf('visibility', VISIBILITIES)
  const description = r.string('description', { max: LIMITS.description })
  const enhance = r.bool('enhance_audio_quality')
  const tags = cleanTags(r, r.list('tags', (s) => [s]))
  const voices = r.files('voices') ?? []
  if (voices.length === 0 && !r.issues.some((i) => i.loc[1] === 'voices')) {
    r.add(['voices'], 'missing', "Field required: add at least one audio file as 'voices'")
  }
  r.tooManyFiles(voices.length)
  const cover = readCover(r)
  const texts = readTexts(r, voices.length)
  r.done()
  return {
    type: type ?? 'tts',
    title: title!,
    trainMode: trainMode ?? 'fast',
    visibility: visibility ?? 'private',
    description: description ?? '',
    voices,
    texts,
    tags: tags ?? [],
    ...(cover ? { coverImage: cover } : {}),
    enhanceAudioQuality: enhance ?? true,
  }
}

/** `PATCH /model/{id}`. A `cover_image` of "" removes the cover; `tags` of "" clears the tags. */
export function parseUpdate(raw: RawBody, limits: BodyLimits): UpdateModelInput {
  const r = new FieldReader(raw, limits)
  const title = r.string('title', { nonEmpty: true, max: LIMITS.title })
  const description = r.string('description', { max: LIMITS.description })
  const visibility = r.oneOf('visibility', VISIBILITIES)
  const tags = cleanTags(r, r.list('tags', (s) => [s]))
  const coverText =
    raw.kind === 'typed' ? raw.values.cover_image : raw.files.has('cover_image') ? undefined : raw.values.get('cover_image')?.[0]
  const cover = coverText === '' ? null : readCover(r)
  r.done()
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(visibility !== undefined ? { visibility } : {}),
    ...(tags !== undefined ? { tags } : {}),
    ...(cover !== undefined ? { coverImage: cover } : {}),
  }
}
