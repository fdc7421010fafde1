import { createHash } from 'node:crypto'
import { wavStreamHeader } from '../../audio/encoders/wav.js'
import { toS16le } from '../../audio/encoders/s16le.js'
import { concatBytes } from '../../audio/signal.js'
import type { DecodedAudio } from '../../audio/types.js'
import { SpeechError } from '../../errors.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { ModelRepository } from '../../store/db/repositories/models.js'
import { enhanceSpeech } from '../../voices/enhance.js'

export interface EnhanceDeps {
  readonly blobs: BlobStore
  readonly repo: ModelRepository
}

export interface EnhancedSample {
  readonly samples: Float32Array
  /** Blob key of the enhanced copy, `models/<id>/voice-<n>.enhanced.wav`. */
  readonly key: string
  readonly sha256: string
}

/**
 * `enhance_audio_quality`: denoises and levels one sample (src/voices/enhance.ts) and stores the result as a
 * 16-bit WAV next to the original, which is kept untouched (it is what `GET /model/{id}/samples/{n}` serves,
 * and a better enhancer later can start from it again). The copy is registered with the model, so deleting
 * the model or crash recovery handles it like any other blob. Re-running after a restart rewrites the same key.
 */
export async function enhanceSample(
  modelId: string,
  index: number,
  audio: DecodedAudio,
  signal: AbortSignal,
  deps: EnhanceDeps,
): Promise<EnhancedSample> {
  const { samples } = await enhanceSpeech(audio.samples, audio.sampleRate, { signal })
  const bytes = wavFile(samples, audio.sampleRate)
  const key = `models/${modelId}/voice-${index}.enhanced.wav`
  signal.throwIfAborted()
  await deps.blobs.put(key, bytes)
  const filename = `voice-${index}.enhanced.wav`
  const row = { key, model_id: modelId, filename, content_type: 'audio/wav', size: bytes.length }
  if (!(await deps.repo.registerBlob(row))) {
    await deps.blobs.delete(key)
    throw new SpeechError('not_found', `[training] model ${modelId} was deleted while it trained`)
  }
  return { samples, key, sha256: createHash('sha256').update(bytes).digest('hex') }
}

/** A complete 16-bit PCM mono WAV file. */
export function wavFile(samples: Float32Array, sampleRate: number): Uint8Array {
  const bytes = concatBytes([wavStreamHeader(sampleRate), toS16le(samples)])
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  view.setUint32(4, bytes.length - 8, true)
  view.setUint32(40, bytes.length - 44, true)
  return bytes
}
