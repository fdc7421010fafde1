import { decodeAudio } from '../../../audio/decode.js'
import { invalidField, SpeechError } from '../../../errors.js'
import type { ReferenceClip } from '../types.js'

/** What a zero-shot model (ZipVoice) conditions on: the reference audio and what it says. */
export interface ReferencePrompt {
  readonly samples: Float32Array
  readonly sampleRate: number
  readonly text: string
}

/** Reference clips are decoded at this rate; the runtime resamples to the model's own. */
const PROMPT_RATE = 24_000
/** Clips are joined up to this length: ZipVoice's prompt is a few seconds; longer ones only cost time. */
const MAX_PROMPT_SECONDS = 20
const GAP_SECONDS = 0.2

// One request's references are decoded once, though the engine is called once per phrase.
const decoded = new WeakMap<readonly ReferenceClip[], Promise<ReferencePrompt>>()

/**
 * The prompt for a zero-shot model from `references` (the request's clips, or a trained voice model's
 * samples): the clips in order, while they fit in `MAX_PROMPT_SECONDS`, with short pauses between, and their
 * transcripts joined. A clip without a transcript or audio that does not decode is a 422 on `references`.
 */
export function referencePrompt(references: readonly ReferenceClip[], signal?: AbortSignal): Promise<ReferencePrompt> {
  let found = decoded.get(references)
  if (!found) {
    found = build(references, signal)
    found.catch(() => decoded.delete(references))
    decoded.set(references, found)
  }
  return found
}

async function build(references: readonly ReferenceClip[], signal?: AbortSignal): Promise<ReferencePrompt> {
  const loc = ['body', 'references']
  if (references.length === 0) throw new SpeechError('bad_request', 'this voice clones from reference audio: send `references` ([{audio, text}]) or the `reference_id` of a trained voice model')
  const parts: Float32Array[] = []
  const texts: string[] = []
  let seconds = 0
  for (const [i, clip] of references.entries()) {
    if (!clip.text.trim()) {
      throw invalidField([...loc, String(i), 'text'], `references[${i}].text is empty: this voice clones from reference audio and needs its transcript`)
    }
    const audio = await decodeAudio(clip.audio, { targetRate: PROMPT_RATE, loc: [...loc, String(i), 'audio'], maxSeconds: 60, ...(signal && { signal }) })
    if (parts.length > 0 && seconds + audio.durationSec > MAX_PROMPT_SECONDS) break
    if (parts.length > 0) parts.push(new Float32Array(Math.round(GAP_SECONDS * PROMPT_RATE)))
    parts.push(audio.samples)
    texts.push(clip.text.trim())
    seconds += audio.durationSec
  }
  const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { samples.set(p, at); at += p.length }
  return { samples, sampleRate: PROMPT_RATE, text: texts.join(' ') }
}
