/** Table shapes as Kysely sees them. JSON columns are stored as text and parsed in the repositories. */
export interface AccountsTable {
  id: string
  nickname: string
  created_at: string
}

export interface ApiKeysTable {
  id: string
  account_id: string
  name: string
  /** sha256 of the key, hex. Keys are random 256-bit values, so a fast hash is enough. */
  key_hash: string
  /** First characters of the key, shown in `keys list` so a user can tell keys apart. */
  prefix: string
  created_at: string
  revoked_at: string | null
}

export interface ModelsTable {
  id: string
  account_id: string
  type: string
  title: string
  description: string
  cover_image: string
  train_mode: string
  state: string
  /** Why training failed, empty otherwise. */
  state_reason: string
  visibility: string
  tags: string
  languages: string
  samples: string
  quality: string
  /** Voice profile JSON (null until trained). */
  profile: string | null
  /** Engine voice a built-in model speaks with, e.g. `festival/slt`; null for user models. */
  builtin_voice: string | null
  default_text: string
  like_count: number
  mark_count: number
  shared_count: number
  task_count: number
  score: number
  created_at: string
  updated_at: string
  /** `title` lower-cased (Unicode-aware, in JS), for the case-insensitive `title` filter. */
  title_search: string
  /** Language detected from the title (`en`, `de`, …; empty when unsure), for the `title_language` filter. */
  title_language: string
  /** 1 or 0: what the creator asked for; stored for a later enhancement step. */
  enhance_audio_quality: number
}

/** One row per (model, lower-cased tag), for the `tag` filter. */
export interface ModelTagsTable {
  model_id: string
  tag: string
}

/** One row per (model, language code), for the `language` filter. */
export interface ModelLanguagesTable {
  model_id: string
  language: string
}

export interface BlobsTable {
  key: string
  model_id: string
  filename: string
  content_type: string
  size: number
}

/** Blob bodies when `blobStore` is `database` (src/store/blob/database.ts). */
export interface SharedBlobsTable {
  key: string
  body: Uint8Array
  size: number
  updated_at: string
}

/**
 * Background jobs (src/services/jobs/). A job is leased by one node at a time: `lease_until` passes without a
 * renewal (the node died) and any node may take it. Times are ISO strings, which sort as they compare.
 */
export interface JobsTable {
  /** `<kind>:<subject>`, so a subject is queued once per kind. */
  id: string
  kind: string
  subject: string
  /** Runs started so far (a release at shutdown gives its attempt back). */
  attempts: number
  run_after: string
  lease_owner: string | null
  lease_until: string | null
  last_error: string
  created_at: string
}

/** An account's own limits (migration 004); null: the configured default, 0: unlimited. */
export interface AccountLimitsTable {
  account_id: string
  max_concurrent: number | null
  requests_per_minute: number | null
  characters_per_month: number | null
  audio_seconds_per_month: number | null
  updated_at: string
}

/** One row per account, locked by each admission in turn (see `QuotaRepository.inTurn`). */
export interface QuotaGatesTable {
  account_id: string
  /** The last admission's time (ISO 8601); writing it is what locks the row. */
  turned_at: string
}

/** One request or live socket under way that counts against its account's concurrency; renewed while it runs. */
export interface QuotaLeasesTable {
  id: string
  account_id: string
  key_id: string
  /** ms since the epoch; a lease past it belongs to a node that stopped renewing (died) and no longer counts. */
  expires_at: number
}

/** Requests an account made in one minute (minutes since the epoch). */
export interface QuotaMinutesTable {
  account_id: string
  minute: number
  used: number
}

/** What one key used in one month (UTC, `YYYY-MM`). */
export interface KeyUsageTable {
  key_id: string
  month: string
  account_id: string
  requests: number
  /** TTS text characters. */
  characters: number
  /** ASR input audio, seconds. */
  audio_seconds: number
  /** TTS output audio, seconds. */
  speech_seconds: number
  updated_at: string
}

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  models: ModelsTable
  model_blobs: BlobsTable
  model_tags: ModelTagsTable
  model_languages: ModelLanguagesTable
  shared_blobs: SharedBlobsTable
  jobs: JobsTable
  account_limits: AccountLimitsTable
  quota_gates: QuotaGatesTable
  quota_leases: QuotaLeasesTable
  quota_minutes: QuotaMinutesTable
  key_usage: KeyUsageTable
}
