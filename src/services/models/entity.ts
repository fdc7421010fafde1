import type { AudioQualityEntry, ModelRecord } from '../../store/model-types.js'

/** The Fish `ModelEntity`: every field of the spec's Voice model table, with the spec's defaults. */
export interface ModelEntity {
  _id: string
  type: string
  title: string
  description: string
  cover_image: string
  /** Always `fast`: the new Python SDK accepts nothing else (see docs/decisions.md). */
  train_mode: 'fast'
  state: string
  /** Why training failed; empty otherwise. Not in the Fish table; clients ignore unknown fields. */
  state_reason: string
  tags: string[]
  samples: { title: string; text: string; task_id: string; audio: string }[]
  created_at: string
  updated_at: string
  languages: string[]
  visibility: string
  lock_visibility: boolean
  dmca_taken_down: boolean | null
  default_text: string
  source: string | null
  quality: { created_at: string; updated_at: string; audios: AudioQualityEntry[] }
  like_count: number
  mark_count: number
  shared_count: number
  task_count: number
  unliked: boolean
  liked: boolean
  marked: boolean
  author: { _id: string; nickname: string; avatar: string }
}

/** URL path of a model's n-th voice sample (`GET /model/{id}/samples/{n}`, authenticated). */
export const samplePath = (id: string, n: number) => `/model/${encodeURIComponent(id)}/samples/${n}`
/** URL path of a model's cover image (`GET /model/{id}/cover`, authenticated). */
export const coverPath = (id: string) => `/model/${encodeURIComponent(id)}/cover`

const titleOf = (filename: string) => filename.replace(/\.[A-Za-z0-9]{1,8}$/, '')

export function toEntity(m: ModelRecord): ModelEntity {
  return {
    _id: m.id,
    type: m.type,
    title: m.title,
    description: m.description,
    cover_image: m.coverKey ? coverPath(m.id) : '',
    train_mode: 'fast',
    state: m.state,
    state_reason: m.stateReason,
    tags: [...m.tags],
    samples: m.samples.map((s, n) => ({
      title: titleOf(s.filename),
      text: s.text,
      task_id: '',
      audio: samplePath(m.id, n),
    })),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    languages: [...m.languages],
    visibility: m.visibility,
    lock_visibility: false,
    dmca_taken_down: false,
    default_text: m.defaultText,
    source: null,
    quality: { created_at: m.quality.created_at, updated_at: m.quality.updated_at, audios: [...m.quality.audios] },
    like_count: m.likeCount,
    mark_count: m.markCount,
    shared_count: m.sharedCount,
    task_count: m.taskCount,
    unliked: false,
    liked: false,
    marked: false,
    author: { _id: m.accountId, nickname: m.authorNickname, avatar: '' },
  }
}
