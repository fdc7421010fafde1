import { SpeechError } from '../../../errors.js'
import type { TurnSettings } from './turn-detector.js'

/** Speech or not, per 10 ms frame (`VAD_FRAME` samples at 16 kHz) of a live session's audio. */
export interface VoiceDetector {
  /** One flag per frame of `pcm`, whose length is a whole number of frames; frames come in order. */
  detect(pcm: Int16Array): Promise<readonly boolean[]>
  close(): void
}

/**
 * A kind of voice activity detector. The session's turn settings apply to every kind the same way: each
 * reads `threshold` on its own scale, and the turn detector does silence and padding on the flags.
 */
export interface VoiceDetectorSource {
  /** What the session's log calls it. */
  readonly name: string
  /** Rejects with `not_found` when this kind is not installed, with another error when it cannot run. */
  open(settings: TurnSettings): Promise<VoiceDetector>
}

/** What a session logs through (a request's logger or the server's). */
export interface LiveLog {
  info(details: object, message: string): void
  warn(details: object, message: string): void
}

/** The detector a session uses, and the ones it passed over and why (for its start log). */
export interface OpenedDetection {
  readonly name: string
  readonly skipped: readonly { readonly vad: string; readonly reason: string }[]
}

/**
 * The first source in `sources` (in order of preference) that opens; the last should always open. A source
 * that is installed but fails (its model broken, its process gone) is logged, now or when it fails later,
 * and the session carries on with the next one from the frames it could not judge.
 */
export async function openVoiceDetection(sources: readonly VoiceDetectorSource[], settings: TurnSettings, log?: LiveLog): Promise<VoiceDetector & OpenedDetection> {
  const skipped: { vad: string; reason: string }[] = []
  const next = async (from: number): Promise<{ detector: VoiceDetector; at: number }> => {
    for (let at = from; at < sources.length; at++) {
      const source = sources[at]!
      try {
        return { detector: await source.open(settings), at }
      } catch (err) {
        skipped.push({ vad: source.name, reason: reasonOf(err) })
        if (!(err instanceof SpeechError && err.code === 'not_found')) {
          log?.warn({ vad: source.name, reason: reasonOf(err), fallback: sources[at + 1]?.name }, '[vad] live transcription cannot use this voice activity detector; it falls back')
        }
      }
    }
    throw new SpeechError('internal_error', `[vad] no voice activity detector could start: ${skipped.map((s) => `${s.vad}: ${s.reason}`).join('; ')}`)
  }
  let current = await next(0)
  return {
    get name() {
      return sources[current.at]!.name
    },
    skipped,
    async detect(pcm) {
      for (;;) {
        try {
          return await current.detector.detect(pcm)
        } catch (err) {
          current.detector.close()
          const failed = sources[current.at]!.name
          const reason = reasonOf(err)
          log?.warn({ vad: failed, reason, fallback: sources[current.at + 1]?.name }, '[vad] the voice activity detector failed during a live session; it falls back')
          skipped.push({ vad: failed, reason })
          current = await next(current.at + 1)
        }
      }
    },
    close() {
      current.detector.close()
    },
  }
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err))
