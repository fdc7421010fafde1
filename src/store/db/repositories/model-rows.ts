import type { Selectable } from 'kysely'
import type { ModelRecord, ModelState, QualityReport, StoredSample } from '../../model-types.js'
import type { ModelsTable } from '../schema.js'

/** A `models` row as the repository reads it (with the author's nickname joined in). */
export type ModelRow = Omit<Selectable<ModelsTable>, 'title_search' | 'profile'> & {
  author_nickname: string
  profile?: string | null
}

/** Columns a record is built from; `title_search` is only filtered on, `profile` is read by id only. */
export const RECORD_COLUMNS = [
  'id', 'account_id', 'type', 'title', 'description', 'cover_image', 'train_mode', 'state', 'state_reason',
  'visibility', 'tags', 'languages', 'samples', 'quality', 'builtin_voice', 'default_text', 'like_count',
  'mark_count', 'shared_count', 'task_count', 'score', 'created_at', 'updated_at', 'title_language',
  'enhance_audio_quality',
] as const

const parseJson = <T>(text: string | null | undefined): T | null => (text === null || text === undefined ? null : (JSON.parse(text) as T))

export function toRecord(r: ModelRow): ModelRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    authorNickname: r.author_nickname,
    type: r.type as ModelRecord['type'],
    title: r.title,
    description: r.description,
    coverKey: r.cover_image,
    trainMode: r.train_mode as ModelRecord['trainMode'],
    state: r.state as ModelState,
    stateReason: r.state_reason,
    visibility: r.visibility as ModelRecord['visibility'],
    tags: JSON.parse(r.tags) as string[],
    languages: JSON.parse(r.languages) as string[],
    titleLanguage: r.title_language,
    samples: JSON.parse(r.samples) as StoredSample[],
    quality: JSON.parse(r.quality) as QualityReport,
    profile: parseJson<unknown>(r.profile),
    builtinVoice: r.builtin_voice,
    defaultText: r.default_text,
    enhanceAudioQuality: r.enhance_audio_quality !== 0,
    likeCount: Number(r.like_count),
    markCount: Number(r.mark_count),
    sharedCount: Number(r.shared_count),
    taskCount: Number(r.task_count),
    score: Number(r.score),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

export function toRow(m: ModelRecord): Selectable<ModelsTable> {
  return {
    id: m.id,
    account_id: m.accountId,
    type: m.type,
    title: m.title,
    title_search: m.title.toLowerCase(),
    title_language: m.titleLanguage,
    description: m.description,
    cover_image: m.coverKey,
    train_mode: m.trainMode,
    state: m.state,
    state_reason: m.stateReason,
    visibility: m.visibility,
    tags: JSON.stringify(m.tags),
    languages: JSON.stringify(m.languages),
    samples: JSON.stringify(m.samples),
    quality: JSON.stringify(m.quality),
    profile: m.profile === null || m.profile === undefined ? null : JSON.stringify(m.profile),
    builtin_voice: m.builtinVoice,
    default_text: m.defaultText,
    enhance_audio_quality: m.enhanceAudioQuality ? 1 : 0,
    like_count: m.likeCount,
    mark_count: m.markCount,
    shared_count: m.sharedCount,
    task_count: m.taskCount,
    score: m.score,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }
}
