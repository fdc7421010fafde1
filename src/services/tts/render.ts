import type { Resampler } from '../../audio/types.js'
import { concatSamples } from '../../audio/signal.js'
import { createResampler } from '../../audio/resample.js'
import type { SynthesisChunk } from '../../engines/tts/types.js'
import type { TextChunk } from '../../text/types.js'
import { EdgeSmoother } from './joins.js'
import { ChunkLeveler } from './levels.js'
import type { TtsParams } from './params.js'
import { ChunkTimeline, type Segment } from './timing.js'
import type { Stretcher, VoiceChooser, VoiceRender } from './voice-plan.js'

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
  readonly signal?: AbortSignal
}

/**
 * Speaks text chunks one after another as one continuous stream. Per chunk: the engine synthesizes with
 * its native rate/pitch controls where it has them, DSP does the rest, the level is set, edges are faded
 * and a natural pause follows; one resampler per engine rate runs across the whole response so joins are
 * seamless. Timing snapshots are emitted as words are rendered.
 */
export async function* renderSpeech(options: RenderOptions): AsyncGenerator<RenderEvent> {
  const { chunks, params, outputRate, signal } = options
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

  for (const [seq, chunk] of chunks.entries()) {
    signal?.throwIfAborted()
    const voice = options.chooseVoice(chunk.speaker, chunk.language)
    const engine = voice.engine
    const rate = engine.sampleRate
    const plan = controlsFor(voice, chunk, params)
    const offsetSec = timelineSec
    const timeline = new ChunkTimeline(chunk.tokens)
    const smoother = new EdgeSmoother(rate)
    let chunkSamples = 0 // at the engine rate, after DSP: the chunk's own timeline
    let engineSeconds = 0 // engine audio consumed so far (before DSP)
    let processedSeconds = 0 // the same audio after DSP: the chunk's own timeline
    // A cloned voice's own level only counts when the caller did not ask for normalized loudness.
    const extraDb = params.volumeDb + chunk.expression.volumeDb + (params.normalizeLoudness ? 0 : plan.gainDb)
    const leveler = new ChunkLeveler(rate, params.normalizeLoudness, extraDb)
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

    yield snapshot()
    const pieces = engine.synthesize(
      { text: chunk.spoken, voice: voice.voiceId, ...(plan.nativeRate !== 1 && { rate: plan.nativeRate }), ...(plan.nativePitch !== 0 && { pitchSemitones: plan.nativePitch }), sampling: params.sampling },
      { signal },
    )
    for await (const piece of pieces) {
      signal?.throwIfAborted()
      const samples = await processPiece(piece, rate, plan, options.stretch, signal)
      const pieceEngineStart = engineSeconds
      const pieceStart = processedSeconds
      engineSeconds += piece.samples.length / rate
      processedSeconds += samples.length / rate
      const stretch = piece.samples.length > 0 ? samples.length / piece.samples.length : 1
      timeline.add(piece.words, (t) => pieceStart + (t - pieceEngineStart) * stretch)
      const out = emit(smoother.push(leveler.push(samples)))
      if (out.length > 0) yield { type: 'audio', samples: out }
      if (piece.words.length > 0 && out.length > 0) yield snapshot()
    }
    const pause = new Float32Array(Math.round((rate * chunk.pauseAfterMs) / 1000 / params.speed))
    const tail = emit(concatSamples([smoother.push(leveler.end()), smoother.end(), pause]))
    if (tail.length > 0) yield { type: 'audio', samples: tail }
    timelineSec += chunkSamples / rate
    yield snapshot()
  }
  const rest = current?.flush()
  if (rest && rest.length > 0) yield { type: 'audio', samples: rest }
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
  const nativeRate = caps.rate ? rate : 1
  // Expression pitch (a few semitones) uses the engine's control where it has one; a cloned voice's pitch
  // always goes through Rubber Band, whose shift is exact.
  const nativePitch = caps.pitch && voice.pitchControl !== false ? chunk.expression.pitchSemitones : 0
  const dspPitch = chunk.expression.pitchSemitones - nativePitch + (a?.pitchSemitones ?? 0)
  const timeRatio = caps.rate ? 1 : 1 / rate
  const pitchScale = 2 ** (dspPitch / 12)
  const formantScale = a?.formantScale ?? 1
  const needsDsp = Math.abs(timeRatio - 1) > 1e-3 || Math.abs(pitchScale - 1) > 1e-3 || Math.abs(formantScale - 1) > 1e-3
  return { nativeRate, nativePitch, dsp: needsDsp ? { timeRatio, pitchScale, formantScale } : null, gainDb: a?.gainDb ?? 0 }
}

async function processPiece(piece: SynthesisChunk, rate: number, plan: Controls, stretch: Stretcher | undefined, signal?: AbortSignal): Promise<Float32Array> {
  // Engines may reuse their buffers; gain is applied in place, so work on a copy.
  if (!plan.dsp || !stretch || piece.samples.length === 0) return piece.samples.slice()
  return stretch(piece.samples, rate, { ...plan.dsp, ...(signal && { signal }) })
}


