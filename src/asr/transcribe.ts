/**
 * Whole-file speech to text: resample to the engine's rate, cut into utterances at pauses (VAD), decode
 * them in parallel, and put the words back on the file's timeline as phrases and a tidy transcript.
 */
import { createResampler } from '../audio/resample.js'
import { int16ToFloat32 } from '../audio/signal.js'
import type { MonoSamples } from '../audio/types.js'
import type { AsrEngine, Recognition, RecognizedWord } from '../engines/asr/types.js'
import { invalidField, SpeechError } from '../errors.js'
import { groupPhrases, phraseText } from './phrases.js'
import { detectSpeech, type SpeechSpan } from './vad.js'

export interface TranscribeOptions {
  /** Language code (`en`, `en-US`); `''` or `auto`: detected by an engine that can, else the engine's first language. */
  readonly language: string
  /** When false, `segments` is empty (the text is the same). */
  readonly timestamps: boolean
  /** Also return every recognised word with its times (`Transcript.words`). */
  readonly words?: boolean
  readonly signal?: AbortSignal
  /** Seconds of the input finished so far, and the input's length; called as utterances complete. */
  readonly onProgress?: (doneSec: number, totalSec: number) => void
}

export interface TranscriptSegment {
  readonly text: string
  readonly start: number
  readonly end: number
}

export interface Transcript {
  readonly text: string
  /** Seconds. */
  readonly duration: number
  readonly segments: TranscriptSegment[]
  /** Recognised words on the input's timeline, when asked for (`TranscribeOptions.words`). */
  readonly words?: TranscriptWord[]
  /** The language the engine heard, when it detects languages and one was left to it (most of the speech). */
  readonly language?: string
}

export interface TranscriptWord {
  readonly word: string
  readonly start: number
  readonly end: number
}

/** Input samples resampled per event-loop turn (10 s at 48 kHz), so an hour of audio never blocks for long. */
const RESAMPLE_CHUNK = 480_000

function throwIfAborted(signal?: AbortSignal): void {
  if (!signal?.aborted) return
  throw new DOMException('[asr] transcription aborted', { name: 'AbortError', cause: signal.reason })
}

/** Mono audio to transcribe; 16-bit samples (what `/v1/asr` decodes to) take half the memory of floats. */
export interface TranscribeInput {
  readonly samples: MonoSamples
  readonly sampleRate: number
}

/**
 * Streams the file through the shared resampler in pieces, writing straight into the result buffer. Audio
 * already at `rate` is used as it is, in either sample type.
 */
async function toRate(audio: TranscribeInput, rate: number, signal?: AbortSignal): Promise<MonoSamples> {
  if (audio.sampleRate === rate) return audio.samples
  const resampler = createResampler(audio.sampleRate, rate)
  const floats = (part: MonoSamples) => (part instanceof Int16Array ? int16ToFloat32(part) : part)
  const out = new Float32Array(Math.ceil((audio.samples.length * rate) / audio.sampleRate))
  let written = 0
  const put = (part: Float32Array) => {
    const n = Math.min(part.length, out.length - written)
    out.set(part.subarray(0, n), written)
    written += n
  }
  for (let first = 0; first < audio.samples.length; first += RESAMPLE_CHUNK) {
    throwIfAborted(signal)
    put(resampler.process(floats(audio.samples.subarray(first, first + RESAMPLE_CHUNK))))
    await new Promise((resolve) => setImmediate(resolve))
  }
  put(resampler.flush())
  return out.subarray(0, written)
}

function pickLanguage(engine: AsrEngine, language: string): string {
  const wanted = language.trim().toLowerCase()
  if (wanted === '' || wanted === 'auto') return engine.capabilities.detectsLanguage ? 'auto' : engine.capabilities.languages[0] ?? 'en'
  const base = wanted.split(/[-_]/)[0] ?? ''
  if (!engine.capabilities.languages.includes(base)) {
    throw invalidField(['body', 'language'],
      `[asr] language '${language}' is not supported by ${engine.id}; ` +
        `supported: ${engine.capabilities.languages.join(', ')}`)
  }
  return base
}

const round2 = (x: number) => Math.round(x * 100) / 100

const VAD_RATES = [8000, 16000, 32000, 48000] as const

/** One utterance's recognition, its words moved to the input's timeline. */
interface SpanResult {
  readonly span: SpeechSpan
  readonly words: RecognizedWord[]
  readonly text?: string
  readonly language?: string
}

/** Decodes the spans, at most `parallelism` at a time per call so concurrent requests share the workers. */
async function decodeSpans(
  engine: AsrEngine, pcm: MonoSamples, spans: readonly SpeechSpan[], language: string, duration: number,
  options: TranscribeOptions,
): Promise<SpanResult[]> {
  const rate = engine.capabilities.sampleRate
  const results: SpanResult[] = new Array(spans.length)
  // One failure cancels the rest of this call's utterances; the caller's signal cancels everything.
  const local = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal
  let pending = spans.reduce((s, x) => s + (x.end - x.start), 0)
  let next = 0
  const lane = async () => {
    while (next < spans.length) {
      const i = next++
      const span = spans[i]!
      const first = Math.round(span.start * rate)
      const offset = first / rate
      const utterance = pcm.subarray(first, Math.round(span.end * rate))
      const recognition: Recognition = await engine.transcribe(utterance, { language, signal })
      results[i] = {
        span,
        words: recognition.map((w) => ({ ...w, start: round2(w.start + offset), end: round2(w.end + offset) })),
        ...(recognition.text !== undefined && { text: recognition.text }),
        ...(recognition.language !== undefined && { language: recognition.language }),
      }
      pending -= span.end - span.start
      options.onProgress?.(Math.min(duration, Math.max(0, round2(duration - pending))), duration)
    }
  }
  const width = Math.max(1, Math.min(engine.capabilities.parallelism, spans.length))
  const lanes = Array.from({ length: width }, lane)
  try {
    await Promise.all(lanes.map((p) => p.catch((err: unknown) => { local.abort(); throw err })))
  } catch (err) {
    await Promise.allSettled(lanes)
    throwIfAborted(options.signal)
    throw err
  }
  return results
}

/** Transcribes one file. Times in the result are seconds on the input's timeline. */
export async function transcribe(
  engine: AsrEngine, audio: TranscribeInput, options: TranscribeOptions,
): Promise<Transcript> {
  if (!(audio.sampleRate > 0)) {
    throw new SpeechError('bad_request', `[asr] invalid sample rate ${audio.sampleRate}`)
  }
  const language = pickLanguage(engine, options.language)
  throwIfAborted(options.signal)
  const duration = round2(audio.samples.length / audio.sampleRate)
  // pocketsphinx and libfvad both work at 16 kHz; should an engine want another rate, the VAD gets 16 kHz
  // unless libfvad takes that rate too.
  const rate = engine.capabilities.sampleRate
  const pcm = await toRate(audio, rate, options.signal)
  const vadRate = VAD_RATES.find((r) => r === rate) ?? 16000
  const vadInput = vadRate === rate
    ? pcm
    : await toRate({ samples: pcm, sampleRate: rate }, vadRate, options.signal)
  const spans = await detectSpeech(vadInput, {
    sampleRate: vadRate, maxSeconds: engine.capabilities.maxUtteranceSeconds, signal: options.signal,
  })
  const perSpan = await decodeSpans(engine, pcm, spans, language, duration, options)
  const recognized = perSpan.flatMap((r) => r.words)
  const segments = toSegments(perSpan)
  const heard = mostHeard(perSpan)
  options.onProgress?.(duration, duration)
  return {
    ...(heard !== undefined && { language: heard }),
    text: segments.map((s) => s.text).join(' '),
    duration,
    segments: options.timestamps ? segments : [],
    ...(options.words && {
      words: recognized.filter((w) => w.word.trim() !== '').map((w) => ({ word: w.word.trim(), start: w.start, end: w.end })),
    }),
  }
}

/**
 * Segments: an utterance whose engine wrote its text is one segment with that text as written, spanning its
 * words; runs of word-only utterances (pocketsphinx) are cut into phrases at pauses and tidied.
 */
function toSegments(perSpan: readonly SpanResult[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = []
  let words: RecognizedWord[] = []
  const flush = () => {
    for (const p of groupPhrases(words)) segments.push({ text: phraseText(p.map((w) => w.word)), start: p[0]!.start, end: p[p.length - 1]!.end })
    words = []
  }
  for (const r of perSpan) {
    if (r.text === undefined) {
      words.push(...r.words)
      continue
    }
    flush()
    const text = r.text.trim()
    if (text === '') continue
    segments.push({
      text,
      start: r.words[0]?.start ?? round2(r.span.start),
      end: r.words[r.words.length - 1]?.end ?? round2(r.span.end),
    })
  }
  flush()
  return segments.filter((s) => s.text.length > 0)
}

/** The language detected for most of the speech, if the engine reported any. */
function mostHeard(perSpan: readonly SpanResult[]): string | undefined {
  const seconds = new Map<string, number>()
  for (const r of perSpan) {
    if (r.language) seconds.set(r.language, (seconds.get(r.language) ?? 0) + r.span.end - r.span.start)
  }
  return [...seconds].sort((a, b) => b[1] - a[1])[0]?.[0]
}
