import { voiceSampleRate } from '../engines/tts/types.js'
import { concatSamples } from '../audio/signal.js'
import { getEncoder } from '../audio/encoders/registry.js'
import type { KeyRepository } from '../store/db/repositories/keys.js'
import type { ModelRepository } from '../store/db/repositories/models.js'
import type { BlobStore } from '../store/blob/types.js'
import type { ModelRecord } from '../store/model-types.js'
import type { EngineSet } from '../engines/tts/engine-set.js'
import { listBuiltinVoices, PARLA_ACCOUNT, type BuiltinVoice } from './builtin.js'

const SAMPLE_TEXT: Record<string, string> = {
  en: 'Hello! This is how I sound. The quick brown fox jumps over the lazy dog.',
}
const sampleText = (languages: readonly string[]) => SAMPLE_TEXT[languages[0]?.split('-')[0] ?? ''] ?? 'Hello, this is how I sound.'
/** The state reason of a built-in voice whose model package is being checked (listed `training`). */
export const CHECKING = 'checking: its model package is being loaded once to see whether the runtime takes it'
export const sampleKey = (modelId: string) => `models/${modelId}/sample-0.wav`

/**
 * Every engine voice becomes a public, trained voice model owned by `parla`, with a stable `_id`
 * (`festival-slt`), so `reference_id` selects it and clients list it with `GET /model`. Existing rows are
 * left alone, so the ids and timestamps stay stable across restarts, and nodes seeding at once insert one row.
 */
export async function seedBuiltinVoices(repo: ModelRepository, keys: KeyRepository, engines: EngineSet): Promise<BuiltinVoice[]> {
  await keys.ensureAccount(PARLA_ACCOUNT.id, PARLA_ACCOUNT.nickname)
  const voices = await listBuiltinVoices(engines)
  const now = new Date().toISOString()
  for (const v of voices) {
    // A voice whose model package is broken is listed `failed` with the reason, and `trained` again once fixed.
    const state = v.voice.unavailable !== undefined ? { state: 'failed' as const, stateReason: v.voice.unavailable }
      : v.voice.checking ? { state: 'training' as const, stateReason: CHECKING }
        : { state: 'trained' as const, stateReason: '' }
    const existing = await repo.findById(v.modelId)
    if (existing) {
      if (existing.state !== state.state || existing.stateReason !== state.stateReason) await repo.setState(v.modelId, state, now, [existing.state])
      continue
    }
    const text = sampleText(v.voice.languages)
    const sample = hasOwnSample(v) ? [{ key: sampleKey(v.modelId), filename: 'sample.wav', contentType: 'audio/wav', size: 0, text }] : []
    const record: ModelRecord = {
      id: v.modelId,
      accountId: PARLA_ACCOUNT.id,
      authorNickname: PARLA_ACCOUNT.nickname,
      type: 'tts',
      title: v.voice.title,
      description: v.voice.description,
      coverKey: '',
      trainMode: 'fast',
      ...state,
      visibility: 'public',
      tags: ['builtin', v.engineId, ...(v.voice.gender === 'unknown' ? [] : [v.voice.gender])],
      languages: v.voice.languages,
      titleLanguage: 'en',
      samples: sample,
      quality: { created_at: now, updated_at: now, audios: [] },
      profile: null,
      builtinVoice: v.modelId,
      defaultText: text,
      enhanceAudioQuality: false,
      likeCount: 0,
      markCount: 0,
      sharedCount: 0,
      taskCount: 0,
      score: v.engineId === 'festival' ? 2 : v.engineId === 'flite' ? 1 : 0,
      createdAt: now,
      updatedAt: now,
    }
    await repo.insertIfAbsent(record, sample.map((x) => ({ key: x.key, model_id: v.modelId, filename: x.filename, content_type: x.contentType, size: 0 })))
  }
  return voices
}

/**
 * A voice that speaks only as a clone of reference audio (ZipVoice) has no voice of its own to sample; a voice
 * whose package is broken cannot speak one. One being checked will have one once it is known good.
 */
export const hasOwnSample = (v: BuiltinVoice) => v.voice.cloning !== 'references' && v.voice.unavailable === undefined

/** Speaks a built-in voice's sample text into its sample blob (`sampleKey`), replacing what is there. */
export async function speakSample(v: BuiltinVoice, engines: EngineSet, blobs: BlobStore, signal?: AbortSignal): Promise<void> {
  const engine = await engines.get(v.engineId)
  const parts: Float32Array[] = []
  for await (const piece of engine.synthesize({ text: sampleText(v.voice.languages), voice: v.voice.id }, signal ? { signal } : {})) parts.push(piece.samples)
  signal?.throwIfAborted()
  const session = getEncoder('wav').create({ sampleRate: voiceSampleRate(engine, v.voice.id) })
  const wav = Buffer.concat([session.push(concatSamples(parts)), session.end()])
  await blobs.put(sampleKey(v.modelId), wav)
}
