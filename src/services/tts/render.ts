import type { Resampler } from '../../audio/types.js'
import { concatSamples } from '../../audio/signal.js'
import { createResampler } from '../../audio/resample.js'
import { voiceSampleRate, type SynthesisChunk } from '../../engines/tts/types.js'
import type { TextChunk } from '../../text/types.js'
import { EdgeSmoother } from './joins.js'
import { Lookahead, readAhead } from './lookahead.js'
import { ChunkLeveler } from './levels.js'
import type { TtsParams } from './params.js'
import { ChunkTimeline, type Segment } from './timing.js'
import { voiceSaidNothing } from './nothing-to-speak.js'
import type { Stretcher, StretchStream, StretchStreamFactory, VoiceChooser, VoiceRender } from './voice-plan.js'

/** What rendering yields: audio at the output rate, and timing snapshots per text chunk. */
export type RenderEvent =
  | { readonly type: 'audio'; readonly samples: Float32Array }
  | {
      readonly type: 'alignment'
      readonly seq: number
      readonly content: string
      /** Start of this chunk in the whole output, seconds. */
      readonly offsetSec: number
      /** Cumulative snapshot; replaces earlier ones for the same seq. */
      readonly segments: readonly Segment[]
      /** Audio of this chunk rendered so far, seconds (speech and pause). */
      readonly audioDurationSec: number
    }

export interface RenderOptions {
  readonly chunks: readonly TextChunk[]
  readonly params: TtsParams
  readonly outputRate: number
  readonly chooseVoice: VoiceChooser
  readonly stretch?: Stretcher
  /**
   * Streaming DSP: when given, the first chunk, if it needs DSP, goes through one real-time stretcher in
   * short blocks, so the first audio leaves after ~0.1 s of processing instead of after the whole sentence.
   */
  readonly stretchStream?: StretchStreamFactory
  readonly signal?: AbortSignal
  /**
   * When the listener needs the first audio (`performance.now()` ms), for the engines' earliest-deadline
   * order; default now. A live socket whose client still has audio to play passes a later time.
   */
  readonly dueAt?: number
  /** An engine spoke `seconds` of audio (the admission control's cost estimate). */
  readonly onAudio?: (engineId: string, seconds: number) => void
  /** `false`: nobody reads the alignment events' words, so engines need not find them (`CallOptions.words`). */
  readonly words?: boolean
  /** Loudness (LUFS) that `normalizeLoudness` brings each chunk to; default DEFAULT_TARGET_LUFS. */
  readonly targetLufs?: number
}

/**
 * Speaks text chunks one after another as one continuous stream. Per chunk: the engine synthesizes with
 * its native rate/pitch controls where it has them, DSP does the rest, the level is set, edges are faded
 * and a natural pause follows; one resampler per engine rate runs across the whole response so joins are
 * seamless. Timing snapshots are emitted as words are rendered.
 */
export async function* renderSpeech(options: RenderOptions): AsyncGenerator<RenderEvent> {
  const lookahead = new Lookahead()
  try {
    yield* renderChunks(options, lookahead)
  } finally {
    lookahead.close()
  }
}

async function* renderChunks(options: RenderOptions, lookahead: Lookahead): AsyncGenerator<RenderEvent> {
  const { chunks, params, outputRate, signal } = options
  const startedAt = options.dueAt ?? performance.now()
  // `audioSec`: audio the listener will have before this chunk's; engines serve the earliest deadline first.
  const startCall = (chunk: TextChunk, audioSec: number): AsyncIterable<SynthesisChunk> => {
    const voice = options.chooseVoice(chunk.speaker, chunk.language)
    const plan = controlsFor(voice, chunk, params)
    return voice.engine.synthesize(
      { text: chunk.spoken, voice: voice.voiceId, language: chunk.language, ...(plan.nativeRate !== 1 && { rate: plan.nativeRate }), ...(plan.nativePitch !== 0 && { pitchSemitones: plan.nativePitch }), sampling: params.sampling, ...(voice.references && { references: voice.references }) },
      { ...(signal && { signal }), deadline: startedAt + audioSec * 1000, ...(options.words === false && { words: false }) },
    )
  }
  let current: Resampler | undefined
  // Times come from the audio fed to the resampler (skip_zeros: output sample n is input time n / outputRate),
  // not from what it has output yet, which lags by the filter's latency.
  let timelineSec = 0

  const resample = (samples: Float32Array, rate: number): Float32Array => {
    // A new engine rate: the previous resampler's held-back tail belongs before this audio.
    const tail = current && current.inputRate !== rate ? current.flush() : undefined
    if (!current || tail) current = createResampler(rate, outputRate)
    const out = current.process(samples)
    return tail && tail.length > 0 ? concatSamples([tail, out]) : out
  }

  // Until the engines have said something, events are held: silence alone (pauses after chunks an engine had no
  // sound for) is no answer, and the request fails with `voiceSaidNothing` before any byte of it is sent.
  let spoke = false
  const held: RenderEvent[] = []
  // Nothing leaves after the listener went: the render may have been waiting (a macrotask turn between blocks,
  // the engine's last piece) when the signal aborted.
  const pass = function* (event: RenderEvent): Generator<RenderEvent> {
    signal?.throwIfAborted()
    if (spoke) yield event
    else held.push(event)
  }

  for (const [seq, chunk] of chunks.entries()) {
    signal?.throwIfAborted()
    const voice = options.chooseVoice(chunk.speaker, chunk.language)
    const engine = voice.engine
    const rate = voiceSampleRate(engine, voice.voiceId)
    const plan = controlsFor(voice, chunk, params)
    const offsetSec = timelineSec
    const timeline = new ChunkTimeline(chunk.tokens)
    const smoother = new EdgeSmoother(rate)
    let chunkSamples = 0 // at the engine rate, after DSP: the chunk's own timeline
    let engineSeconds = 0 // engine audio consumed so far (before DSP)
    let processedSeconds = 0 // the same audio after DSP: the chunk's own timeline
    // A cloned voice's own level only counts when the caller did not ask for normalized loudness.
    const extraDb = params.volumeDb + chunk.expression.volumeDb + (params.normalizeLoudness ? 0 : plan.gainDb)
    const leveler = new ChunkLeveler(rate, params.normalizeLoudness, extraDb, options.targetLufs)
    const snapshot = (): RenderEvent => ({
      type: 'alignment',
      seq,
      content: chunk.content,
      offsetSec,
      segments: timeline.snapshot(chunkSamples / rate),
      audioDurationSec: chunkSamples / rate,
    })
    const emit = (samples: Float32Array): Float32Array => {
      chunkSamples += samples.length
      return resample(samples, rate)
    }

    yield* pass(snapshot())
    const next = chunks[seq + 1]
    // The next chunk's call starts as soon as this one's engine has made its last audio (see readAhead).
    const pieces = readAhead(lookahead.take(seq, () => startCall(chunk, timelineSec)), rate, (receivedSec) => {
      if (next) lookahead.prefetch(seq + 1, () => startCall(next, timelineSec + receivedSec))
    })
    // Only the first chunk streams its DSP: that is where first-audio time is decided, and Rubber Band's
    // offline mode (a study pass over the whole piece) sounds cleaner (pocketsphinx word error rate on a
    // +4 semitone clone: 23 % streamed, 16 % offline). The stream's output is aligned with its input, so
    // engine time t lands at t × timeRatio. It is set up while the engine works on the first piece.
    const opening = plan.dsp && options.stretchStream && seq === 0 ? options.stretchStream(rate, plan.dsp) : undefined
    opening?.catch(() => {}) // awaited below; a chunk with no pieces must not leave a rejection unhandled
    let stream: StretchStream | undefined
    try {
      for await (const piece of pieces) {
        signal?.throwIfAborted()
        if (!spoke && piece.samples.length > 0) {
          spoke = true
          yield* held.splice(0)
        }
        stream ??= await opening
        const samples = stream ? undefined : await processPiece(piece, rate, plan, options.stretch, signal)
        const pieceEngineStart = engineSeconds
        const pieceStart = processedSeconds
        engineSeconds += piece.samples.length / rate
        options.onAudio?.(engine.id, piece.samples.length / rate)
        processedSeconds += (samples?.length ?? 0) / rate
        // Words without audio (timed after it, see SynthesisChunk) take the chunk's stretch so far.
        const stretch = samples && piece.samples.length > 0 ? samples.length / piece.samples.length : engineSeconds > 0 ? processedSeconds / engineSeconds : 1
        const whole = engine.capabilities.streaming === 'utterance'
        const toChunkTime = stream ? (t: number) => t * plan.dsp!.timeRatio : (t: number) => pieceStart + (t - pieceEngineStart) * stretch
        // Audio only (`words: false`): nobody reads the alignment events' words, so no frame analysis for them.
        if (options.words !== false) timeline.addPiece({ words: piece.words, samples: piece.samples, rate, startSec: pieceEngineStart, whole }, toChunkTime)
        let sent = 0
        if (stream) leveler.measure(piece.samples)
        for (const part of stream ? streamed(stream, piece.samples, rate, signal) : [samples!]) {
          for (const block of blocks(leveler.push(part), rate, offsetSec === 0 && chunkSamples === 0)) {
            const out = emit(smoother.push(block))
            sent += out.length
            if (out.length > 0) yield* pass({ type: 'audio', samples: out })
            // The same macrotask turn between blocks of a piece: the HTTP response also corks its socket until
            // the next tick, so otherwise the first 50 ms block would leave only with the rest of the sentence.
            if (!stream && out.length > 0) await new Promise((resolve) => setImmediate(resolve))
          }
          // The consumer pulls again within the same microtask run, so without a macrotask turn here the
          // socket would only see the first bytes after the whole piece went through Rubber Band.
          if (stream) await new Promise((resolve) => setImmediate(resolve))
        }
        if (piece.words.length > 0 && sent > 0) yield* pass(snapshot())
      }
      if (stream) {
        const out = emit(smoother.push(leveler.push(stream.flush())))
        if (out.length > 0) yield* pass({ type: 'audio', samples: out })
      }
    } finally {
      if (stream) stream.close()
      else void opening?.then((s) => s.close(), () => {})
    }
    const pause = new Float32Array(Math.round((rate * chunk.pauseAfterMs) / 1000 / params.speed))
    const tail = emit(concatSamples([smoother.push(leveler.end()), smoother.end(), pause]))
    if (tail.length > 0) yield* pass({ type: 'audio', samples: tail })
    timelineSec += chunkSamples / rate
    yield* pass(snapshot())
  }
  const first = chunks[0]
  if (!spoke && first) throw voiceSaidNothing(options.chooseVoice(first.speaker, first.language).modelId)
  const rest = current?.flush()
  signal?.throwIfAborted()
  if (rest && rest.length > 0) yield { type: 'audio', samples: rest }
}

/** Longest block of audio passed down the chain at once; the first block of a response is much shorter. */
const BLOCK_SEC = 0.5
const FIRST_BLOCK_SEC = 0.05

/**
 * Engines that speak a sentence at a time deliver seconds of audio at once. It goes down the chain
 * (edges, resampler, encoder, socket) in blocks, the very first one short, so the first bytes leave as
 * soon as they are encoded instead of after the whole piece is.
 */
function* blocks(samples: Float32Array, rate: number, first: boolean): Generator<Float32Array> {
  let size = Math.round(rate * (first ? FIRST_BLOCK_SEC : BLOCK_SEC))
  for (let at = 0; at < samples.length; at += size, size = Math.round(rate * BLOCK_SEC)) {
    yield samples.subarray(at, Math.min(samples.length, at + size))
  }
}

interface Controls {
  nativeRate: number
  nativePitch: number
  /** DSP still to apply: time ratio (output/input duration), pitch scale, formant scale. */
  dsp: { timeRatio: number; pitchScale: number; formantScale: number } | null
  gainDb: number
}

/** Splits the wanted rate and pitch between the engine's own controls and DSP. */
function controlsFor(voice: VoiceRender, chunk: TextChunk, params: TtsParams): Controls {
  const caps = voice.engine.capabilities
  const a = voice.adaptation
  const rate = params.speed * chunk.expression.rate * (a?.rate ?? 1)
  // A cloned voice's tempo may go to Rubber Band along with its pitch (`tempoByDsp`, see voice-resolver.ts).
  const wanted = a?.tempoByDsp ? rate / a.rate : rate
  // The engine's control as far as it reaches; Rubber Band stretches the rest.
  const [lo, hi] = caps.rateRange ?? [0, Infinity]
  const nativeRate = caps.rate ? Math.min(hi, Math.max(lo, wanted)) : 1
  // Expression pitch (a few semitones) uses the engine's control where it has one; a cloned voice's pitch
  // always goes through Rubber Band, whose shift is exact.
  const nativePitch = caps.pitch && voice.pitchControl !== false ? chunk.expression.pitchSemitones : 0
  const dspPitch = chunk.expression.pitchSemitones - nativePitch + (a?.pitchSemitones ?? 0)
  const timeRatio = nativeRate / rate
  const pitchScale = 2 ** (dspPitch / 12)
  const formantScale = a?.formantScale ?? 1
  const needsDsp = Math.abs(timeRatio - 1) > 1e-3 || Math.abs(pitchScale - 1) > 1e-3 || Math.abs(formantScale - 1) > 1e-3
  return { nativeRate, nativePitch, dsp: needsDsp ? { timeRatio, pitchScale, formantScale } : null, gainDb: a?.gainDb ?? 0 }
}

/** Input fed to a streaming stretcher per step; each step's output goes on down the chain at once. */
const STREAM_BLOCK_SEC = 0.05

function* streamed(stream: StretchStream, samples: Float32Array, rate: number, signal?: AbortSignal): Generator<Float32Array> {
  const size = Math.round(rate * STREAM_BLOCK_SEC)
  for (let at = 0; at < samples.length; at += size) {
    signal?.throwIfAborted()
    const out = stream.process(samples.subarray(at, Math.min(samples.length, at + size)))
    if (out.length > 0) yield out
  }
}

async function processPiece(piece: SynthesisChunk, rate: number, plan: Controls, stretch: Stretcher | undefined, signal?: AbortSignal): Promise<Float32Array> {
  // Engines may reuse their buffers; gain is applied in place, so work on a copy unless the engine handed them over.
  if (!plan.dsp || !stretch || piece.samples.length === 0) return piece.owned ? piece.samples : piece.samples.slice()
  return stretch(piece.samples, rate, { ...plan.dsp, ...(signal && { signal }) })
}

