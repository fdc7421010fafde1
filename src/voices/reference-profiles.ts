import { createHash } from 'node:crypto'
import { decodeAudio } from '../audio/decode.js'
import { invalidField } from '../errors.js'
import { analyzeVoice } from './analysis.js'
import { mergeProfiles } from './merge.js'
import { isNoSpeechError } from './quality.js'
import type { VoiceProfile } from './types.js'

export interface ReferenceClip {
  readonly audio: Uint8Array
  readonly text: string
}

const MAX_CACHED = 256
const MAX_REFERENCE_SECONDS = 120

/**
 * Profiles of inline `references`, cached by the sha256 of each clip (audio and transcript), so repeating
 * the same references costs no decoding or analysis. The cache is a small LRU in memory.
 */
export function createReferenceProfiles() {
  const cache = new Map<string, Promise<VoiceProfile>>()
  const stats = { hits: 0, analyses: 0 }

  // The analysis is shared by every request that sends the clip meanwhile, so no single client's abort
  // signal is passed to it; it takes well under a second.
  const profileOf = (clip: ReferenceClip, loc: string[]): Promise<VoiceProfile> => {
    const key = createHash('sha256').update(clip.audio).update('\u0000').update(clip.text).digest('hex')
    const hit = cache.get(key)
    if (hit) {
      stats.hits++
      cache.delete(key)
      cache.set(key, hit)
      return hit
    }
    stats.analyses++
    const pending = analyzeClip(clip, loc, key)
    pending.catch(() => cache.delete(key))
    cache.set(key, pending)
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
    return pending
  }

  return {
    /** One profile for a speaker's clips; 422 naming the clip for undecodable audio or no speech. */
    async analyze(clips: readonly ReferenceClip[], locPrefix: readonly string[], signal?: AbortSignal): Promise<VoiceProfile> {
      signal?.throwIfAborted()
      const profiles = await Promise.all(clips.map((clip, i) => profileOf(clip, [...locPrefix, String(i), 'audio'])))
      return profiles.length === 1 ? profiles[0]! : mergeProfiles(profiles).profile
    },
    get size() {
      return cache.size
    },
    /** Clips served from the cache, and clips decoded and analysed, since start. */
    get stats(): { readonly hits: number; readonly analyses: number } {
      return { ...stats }
    },
  }
}

export type ReferenceProfiles = ReturnType<typeof createReferenceProfiles>

async function analyzeClip(clip: ReferenceClip, loc: string[], sha256: string): Promise<VoiceProfile> {
  // `references[1]`, or `references[0][1]` for a speaker's list.
  const name = loc.slice(1, -1).reduce((acc, part) => `${acc}[${part}]`)
  // A copy for the decoder (bin values are views into the request body), and a length limit: 10-30 s is
  // what a reference should be, and analysis time grows with length.
  const decoded = await decodeAudio(new Uint8Array(clip.audio), { name, loc, maxSeconds: MAX_REFERENCE_SECONDS })
  try {
    const profile = await analyzeVoice(decoded.samples, decoded.sampleRate, { ...(clip.text.trim() && { transcript: clip.text }) })
    return { ...profile, sources: [{ key: `inline:${sha256}`, sha256, text: clip.text, durationSec: decoded.durationSec }] }
  } catch (err) {
    if (isNoSpeechError(err)) throw invalidField(loc, `${name} contains no speech; send 10 to 30 seconds of clear speech`)
    throw err
  }
}
