import type { ReferenceClip } from '../../engines/tts/types.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { StoredSample } from '../../store/model-types.js'

/** At most this many clips go to a cloning engine (fish-speech conditions on all it gets; more is slower). */
const MAX_CLIPS = 3

/**
 * A trained model's samples with their transcripts (the client's, or the ones training recognised), as
 * references for an engine that clones from audio and text. Samples without a transcript are left out.
 */
export async function referenceClips(samples: readonly StoredSample[], blobs: BlobStore): Promise<ReferenceClip[]> {
  const clips: ReferenceClip[] = []
  for (const s of samples) {
    if (clips.length >= MAX_CLIPS) break
    if (!s.text.trim()) continue
    const bytes = await blobs.get(s.key)
    if (bytes) clips.push({ audio: new Uint8Array(bytes), text: s.text })
  }
  return clips
}
