/**
 * A client of `POST /v1/tts/stream/with-timestamp` that follows the spec's client rules to the letter:
 * concatenate `audio_base64` of every event in arrival order; store alignment per `chunk_seq`, replacing it
 * on every non-null one; global time = segment time + `chunk_audio_offset_sec`.
 */
import { expect } from 'vitest'

export interface Segment {
  readonly text: string
  readonly start: number
  readonly end: number
}

export interface StreamingEvent {
  readonly audio_base64: string
  readonly content: string
  readonly alignment: { readonly segments: readonly Segment[]; readonly audio_duration: number } | null
  readonly chunk_seq: number
  readonly chunk_audio_offset_sec: number
}

/** Messages of an SSE body: only `data: ` lines count (the docs' parser ignores everything else). */
export function parseSse(body: string): StreamingEvent[] {
  const events: StreamingEvent[] = []
  for (const message of body.split(/\r?\n\r?\n/)) {
    const data = message
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
    if (data.length > 0) events.push(JSON.parse(data.join('\n')) as StreamingEvent)
  }
  return events
}

export interface StoredChunk {
  alignment: NonNullable<StreamingEvent['alignment']>
  offset: number
  content: string
  /** How many non-null snapshots arrived for this chunk. */
  snapshots: number
}

export interface Rebuilt {
  readonly audio: Buffer
  /** Latest snapshot per chunk_seq, in chunk order. */
  readonly chunks: Map<number, StoredChunk>
  /** Every stored segment on the global timeline, in chunk order. */
  readonly words: Segment[]
}

export function rebuild(events: readonly StreamingEvent[]): Rebuilt {
  const parts: Buffer[] = []
  const chunks = new Map<number, StoredChunk>()
  for (const e of events) {
    parts.push(Buffer.from(e.audio_base64, 'base64'))
    if (e.alignment === null) continue
    const prev = chunks.get(e.chunk_seq)
    chunks.set(e.chunk_seq, { alignment: e.alignment, offset: e.chunk_audio_offset_sec, content: e.content, snapshots: (prev?.snapshots ?? 0) + 1 })
  }
  const sorted = new Map([...chunks].sort((a, b) => a[0] - b[0]))
  const words = [...sorted.values()].flatMap((c) =>
    c.alignment.segments.map((s) => ({ text: s.text, start: s.start + c.offset, end: s.end + c.offset })),
  )
  return { audio: Buffer.concat(parts), chunks: sorted, words }
}

/** Each word has a length, starts no earlier than the one before it ends, and ends within `seconds` of audio. */
export function expectWordsInOrderWithin(words: readonly Segment[], seconds: number): void {
  for (const [i, w] of words.entries()) {
    expect(w.end).toBeGreaterThan(w.start)
    expect(w.end).toBeLessThanOrEqual(seconds + 1e-3)
    if (i > 0) expect(w.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-3)
  }
}

export interface Silence {
  readonly start: number
  readonly end: number
}

/**
 * Silences in `samples`, found by energy alone: runs of 5 ms frames whose RMS is more than `belowPeakDb`
 * under the loudest frame, lasting at least `minSec`. A run touching the start or end of the audio counts.
 */
export function findSilences(samples: Float32Array, rate: number, belowPeakDb = 45, minSec = 0.08): Silence[] {
  const frame = Math.round(rate * 0.005)
  const rms: number[] = []
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let e = 0
    for (let k = 0; k < frame; k++) e += samples[i + k]! ** 2
    rms.push(Math.sqrt(e / frame))
  }
  const threshold = Math.max(...rms) * 10 ** (-belowPeakDb / 20)
  const out: Silence[] = []
  let run = -1
  for (let i = 0; i <= rms.length; i++) {
    const quiet = i < rms.length && rms[i]! < threshold
    if (quiet && run < 0) run = i
    if (!quiet && run >= 0) {
      if ((i - run) * 0.005 >= minSec || run === 0) out.push({ start: (run * frame) / rate, end: (i * frame) / rate })
      run = -1
    }
  }
  return out
}
