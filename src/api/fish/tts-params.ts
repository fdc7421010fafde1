import type { Config } from '../../config/schema.js'
import { invalidField, SpeechError } from '../../errors.js'
import type { AudioFormat } from '../../audio/types.js'
import type { SamplingParams } from '../../engines/tts/types.js'
import type { ReferenceInput, TtsParams } from '../../services/tts/params.js'
import type { TagDialect } from '../../text/types.js'
import type { TtsRequestBody } from './tts-schemas.js'

/** The `model` header: `s1` selects s1 tags; anything else, or nothing, is `s2-pro` (fish-compat §1). */
export const dialectFromHeader = (model: unknown): TagDialect => (String(model ?? '').trim().toLowerCase() === 's1' ? 's1' : 's2-pro')

export function toTtsParams(body: TtsRequestBody, modelHeader: unknown, config: Config): TtsParams {
  if (body.text.length > config.maxTextLength) {
    throw invalidField(['body', 'text'], `text is ${body.text.length} characters; the limit is ${config.maxTextLength}. Split it into several requests`, 'string_too_long')
  }
  const format = body.format ?? 'mp3'
  const referenceIds = (Array.isArray(body.reference_id) ? body.reference_id : body.reference_id ? [body.reference_id] : []).map((id) => id.trim())
  if (referenceIds.length > 1 && referenceIds.some((id) => id === '')) throw invalidField(['body', 'reference_id'], 'reference_id array entries must be non-empty voice model ids')
  const sampling: SamplingParams = {
    ...(body.temperature != null && { temperature: body.temperature }),
    ...(body.top_p != null && { topP: body.top_p }),
    ...(body.repetition_penalty != null && { repetitionPenalty: body.repetition_penalty }),
    ...(body.max_new_tokens != null && { maxNewTokens: body.max_new_tokens }),
    ...(body.condition_on_previous_chunks != null && { conditionOnPreviousChunks: body.condition_on_previous_chunks }),
    ...(body.early_stop_threshold != null && { earlyStopThreshold: body.early_stop_threshold }),
  }
  return {
    text: body.text,
    dialect: dialectFromHeader(modelHeader),
    model: String(modelHeader ?? '').trim().toLowerCase(),
    defaultLanguage: config.defaultLanguage,
    referenceIds: referenceIds.filter((id) => id !== ''),
    references: parseReferences(body.references, config),
    speed: body.prosody?.speed ?? 1,
    volumeDb: body.prosody?.volume ?? 0,
    normalizeLoudness: body.prosody?.normalize_loudness ?? true,
    chunkLength: body.chunk_length ?? 200,
    minChunkLength: body.min_chunk_length ?? 50,
    latency: body.latency ?? 'balanced',
    normalize: body.normalize ?? true,
    format,
    ...(body.sample_rate != null && { sampleRate: body.sample_rate }),
    ...(bitrateFor(format, body) !== undefined && { bitrate: bitrateFor(format, body) }),
    sampling,
  }
}

function bitrateFor(format: AudioFormat, body: TtsRequestBody): number | undefined {
  if (format === 'mp3') return (body.mp3_bitrate ?? 128) * 1000
  if (format === 'opus') {
    const b = body.opus_bitrate ?? -1000
    // The Python SDK sends kbps (24/32/48/64); the docs and LiveKit send bps.
    return b > 0 && b < 1000 ? b * 1000 : b
  }
  return undefined
}

/** `references` as `[{audio, text}]` or, for multi-speaker, `[[{audio, text}], …]`. */
function parseReferences(raw: TtsRequestBody['references'], config: Config): ReferenceInput[][] {
  if (!raw || raw.length === 0) return []
  const nested = raw.every((r) => Array.isArray(r))
  if (!nested && raw.some((r) => Array.isArray(r))) throw invalidField(['body', 'references'], 'references must be a list of {audio, text} or a list of such lists (one per speaker), not a mix')
  const groups = (nested ? raw : [raw]) as unknown[][]
  const total = groups.reduce((n, g) => n + g.length, 0)
  if (total > config.maxReferences) throw invalidField(['body', 'references'], `at most ${config.maxReferences} references per request; got ${total}`)
  return groups.map((group, g) =>
    group.map((ref, i) => {
      const loc = nested ? ['body', 'references', String(g), String(i)] : ['body', 'references', String(i)]
      const { audio, text } = (ref ?? {}) as { audio?: unknown; text?: unknown }
      const bytes = audioBytes(audio, [...loc, 'audio'])
      if (bytes.length === 0) throw invalidField([...loc, 'audio'], `reference ${loc.slice(2).join('.')} has empty audio`)
      if (bytes.length > config.maxReferenceBytes) {
        throw new SpeechError('payload_too_large', `reference ${loc.slice(2).join('.')} audio is ${bytes.length} bytes; the limit is ${config.maxReferenceBytes}`)
      }
      if (typeof text !== 'string') throw invalidField([...loc, 'text'], `reference ${loc.slice(2).join('.')} needs its transcript as a string in 'text'`)
      return { audio: bytes, text }
    }),
  )
}

function audioBytes(audio: unknown, loc: string[]): Uint8Array {
  if (audio instanceof Uint8Array) return audio
  if (typeof audio === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(audio.replace(/\s+/g, ''))) throw invalidField(loc, 'audio as a string must be base64-encoded')
    return new Uint8Array(Buffer.from(audio, 'base64'))
  }
  if (audio && typeof audio === 'object' && (audio as { type?: unknown }).type === 'Buffer' && Array.isArray((audio as { data?: unknown }).data)) {
    const data = (audio as { data: unknown[] }).data
    if (!data.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255)) throw invalidField(loc, 'audio.data must be a list of bytes (0-255)')
    return Uint8Array.from(data as number[])
  }
  throw invalidField(loc, 'audio must be binary (MessagePack bin), a base64 string, or {"type":"Buffer","data":[...]}')
}
