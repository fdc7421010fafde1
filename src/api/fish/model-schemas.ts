import { Type, type Static, type TSchema } from 'typebox'
import { MODEL_STATES, MODEL_TYPES, SORT_KEYS, TRAIN_MODES, VISIBILITIES } from '../../store/model-types.js'

/**
 * Schemas of `/model`: they validate the query and path, describe the bodies in the OpenAPI document, and
 * drive response serialization. Response objects list every field the serializer produces, so nothing is
 * stripped; objects that may grow (the entity, sample measurements) also allow additional properties.
 */
const DateTime = Type.String({ format: 'date-time' })
const Binary = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' })
const Base64 = Type.String({ contentEncoding: 'base64' })
const TextList = (description: string) => Type.Union([Type.Array(Type.String()), Type.String()], { description })

export const ErrorBody = Type.Object(
  { status: Type.Integer(), message: Type.String() },
  { additionalProperties: false, description: 'Every non-2xx answer except 422' },
)

export const ValidationErrorBody = Type.Array(
  Type.Object({
    loc: Type.Array(Type.String(), { description: 'Where the offending field is, e.g. ["body", "voices", "0"]' }),
    type: Type.String(),
    msg: Type.String(),
    ctx: Type.Optional(Type.String()),
    in: Type.Optional(Type.Enum(['path', 'query', 'header', 'cookie', 'body'])),
  }),
  { description: 'Validation failure: one entry per offending field' },
)

const Measurements = Type.Object(
  {
    sample_rate: Type.Integer(),
    channels: Type.Integer(),
    format: Type.String(),
    peak: Type.Optional(Type.Number()),
    clipping_ratio: Type.Optional(Type.Number()),
    rms_dbfs: Type.Optional(Type.Number()),
    silence_ratio: Type.Optional(Type.Number()),
    snr_db: Type.Optional(Type.Number()),
  },
  { additionalProperties: true, description: 'What the decoder and the quality check measured' },
)

const AudioQuality = Type.Object({
  filename: Type.String(),
  duration_ms: Type.Integer(),
  language: Type.String({ default: 'unknown' }),
  quality: Measurements,
  quality_passed: Type.Boolean({ default: false }),
  quality_reason: Type.String({ default: '' }),
})

export const ModelEntity = Type.Object(
  {
    _id: Type.String(),
    type: Type.Enum(MODEL_TYPES),
    title: Type.String(),
    description: Type.String({ default: '' }),
    cover_image: Type.String({ default: '', description: 'URL path of the cover (GET it with your key), or ""' }),
    train_mode: Type.Enum(TRAIN_MODES, { description: 'Always "fast" on the wire; see docs/decisions.md' }),
    state: Type.Enum(MODEL_STATES),
    state_reason: Type.String({ description: 'Why training failed; empty otherwise' }),
    tags: Type.Array(Type.String()),
    samples: Type.Array(
      Type.Object({
        title: Type.String(),
        text: Type.String(),
        task_id: Type.String(),
        audio: Type.String({ description: 'URL path of the stored sample: GET /model/{id}/samples/{n}' }),
      }),
    ),
    created_at: DateTime,
    updated_at: DateTime,
    languages: Type.Array(Type.String()),
    visibility: Type.Enum(VISIBILITIES),
    lock_visibility: Type.Boolean({ default: false }),
    dmca_taken_down: Type.Union([Type.Boolean(), Type.Null()], { default: false }),
    default_text: Type.String({ default: '' }),
    source: Type.Union([Type.String(), Type.Null()]),
    quality: Type.Object({ created_at: DateTime, updated_at: DateTime, audios: Type.Array(AudioQuality) }),
    like_count: Type.Integer(),
    mark_count: Type.Integer(),
    shared_count: Type.Integer(),
    task_count: Type.Integer(),
    unliked: Type.Boolean({ default: false }),
    liked: Type.Boolean({ default: false }),
    marked: Type.Boolean({ default: false }),
    author: Type.Object({ _id: Type.String(), nickname: Type.String(), avatar: Type.String() }),
  },
  { additionalProperties: true },
)

export const ModelList = Type.Object({ total: Type.Integer(), items: Type.Array(ModelEntity) })
export const StatusOk = Type.Object({ status: Type.Literal('ok') })

/** Arrays come as `tag=a&tag=b`, `tag[]=a` (axios) or `tag=a,b`; a single value is coerced to an array. */
const QueryList = (description: string) => Type.Optional(Type.Array(Type.String(), { description }))

export const ListModelsQuery = Type.Object({
  page_size: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  page_number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1 }),
  title: Type.Optional(Type.String({ maxLength: 1000, description: 'Case-insensitive substring of the title' })),
  tag: QueryList('Models having ANY of these tags (case-insensitive); repeated, tag[]= or comma-separated'),
  'tag[]': QueryList('Same as tag (axios bracket form)'),
  self: Type.Boolean({ default: false, description: 'Only your own models, including unlisted and private ones' }),
  author_id: Type.Optional(Type.String({ description: "Only this account's public models; ignored when self=true" })),
  language: QueryList('Models speaking ANY of these languages (codes like en, de)'),
  'language[]': QueryList('Same as language'),
  title_language: QueryList('Models whose title is in ANY of these languages'),
  'title_language[]': QueryList('Same as title_language'),
  sort_by: Type.Enum(SORT_KEYS, { default: 'score', description: 'Descending; ties by created_at, then id' }),
})
export type ListModelsQuery = Static<typeof ListModelsQuery>

export const ModelIdParams = Type.Object({ id: Type.String({ description: 'Voice model id' }) })
export const SampleParams = Type.Object({
  id: Type.String({ description: 'Voice model id' }),
  n: Type.Integer({ minimum: 0, description: 'Index into samples[]' }),
})

const createFields = (file: TSchema, files: TSchema) =>
  Type.Object(
    {
      type: Type.Optional(Type.Enum(MODEL_TYPES, { default: 'tts' })),
      title: Type.String({ minLength: 1, maxLength: 200 }),
      train_mode: Type.Optional(Type.Enum(TRAIN_MODES, { default: 'fast', description: 'Stored; the entity always says fast' })),
      voices: files,
      texts: Type.Optional(TextList('Transcript per voice, in order. One comma-joined field is split only when the pieces match the voices')),
      tags: Type.Optional(TextList('Tags; repeated or comma-joined')),
      description: Type.Optional(Type.String({ maxLength: 5000 })),
      visibility: Type.Optional(Type.Enum(VISIBILITIES, { default: 'private' })),
      cover_image: Type.Optional(file),
      enhance_audio_quality: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { default: true, description: 'true/false; stored' })),
    },
    { additionalProperties: true },
  )

const updateFields = (file: TSchema) =>
  Type.Object(
    {
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      description: Type.Optional(Type.String({ maxLength: 5000 })),
      visibility: Type.Optional(Type.Enum(VISIBILITIES)),
      tags: Type.Optional(TextList('Replaces the tags; repeated or comma-joined; "" clears them')),
      cover_image: Type.Optional(file),
    },
    { additionalProperties: true },
  )

const VoicesJson = Type.Array(Base64, { minItems: 1, description: 'Audio files: base64 strings in JSON, bin in MessagePack' })
const VoicesFiles = Type.Array(Binary, { minItems: 1, description: 'Audio files (repeat the field per file)' })

/** Per content type, for the OpenAPI document. The handler parses and checks bodies itself (files, encodings). */
const byContentType = (json: TSchema, form: TSchema) => ({
  content: {
    'multipart/form-data': { schema: form },
    'application/json': { schema: json },
    'application/msgpack': { schema: json },
    'application/x-www-form-urlencoded': { schema: json },
  },
})

export const CreateModelBody = byContentType(createFields(Base64, VoicesJson), createFields(Binary, VoicesFiles))
export const UpdateModelBody = byContentType(updateFields(Base64), updateFields(Binary))

/** Error answers each route documents. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, s === 422 ? ValidationErrorBody : ErrorBody]))
