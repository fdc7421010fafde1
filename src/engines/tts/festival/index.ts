import { availableParallelism } from 'node:os'
import { SpeechError } from '../../../errors.js'
import { wordsFromSpoken, type SpokenWord } from '../align-words.js'
import { raceAbort } from '../../../abort.js'
import { toAsciiText } from '../ascii-text.js'
import { synthesizePieces, type PieceResult } from '../piece-synth.js'
import { ResourcePool } from '../pool.js'
import { splitSentences, type TextPiece } from '../split-sentences.js'
import type { SynthesisRequest, TtsEngine, TtsEngineFactory, TtsEngineOptions, TtsVoice } from '../types.js'
import { FestivalProcess } from './process.js'
import { FESTIVAL_RATE_RANGE, htsRate } from './rate.js'

const VOICES: readonly TtsVoice[] = [
  {
    id: 'slt',
    title: 'SLT (festival HTS)',
    languages: ['en', 'en-us'],
    gender: 'female',
    description: 'US English female, CMU ARCTIC slt, HMM-based (HTS) voice run by festival; clear and natural.',
  },
]

/** The festival engine, plus process ids for tests and diagnostics. */
export interface FestivalEngine extends TtsEngine {
  processIds(): { readonly all: readonly number[]; readonly busy: readonly number[] }
}

/**
 * festival + festvox-us-slt-hts as a pool of long-lived `festival --pipe` processes (one per core by
 * default). Text is synthesized sentence by sentence; an interrupted or crashed process is killed and
 * replaced, so a request never waits for work nobody wants.
 */
export async function createFestivalEngine(options: TtsEngineOptions = {}): Promise<FestivalEngine> {
  let poolRef: ResourcePool<FestivalProcess> | undefined
  const pool = await ResourcePool.start<FestivalProcess>({
    name: 'festival',
    size: options.processes ?? availableParallelism(),
    create: async () => {
      const proc = await FestivalProcess.start()
      proc.onExit(() => {
        // Also after a cancelled request's process is killed on purpose, so not a warning.
        options.logger?.debug({ pid: proc.pid }, '[festival] process exited; the pool replaces it')
        poolRef?.discard(proc)
      })
      return proc
    },
    destroy: (proc) => proc.kill(),
  })
  poolRef = pool
  // The voice decides the rate; ask it once (this also warms the process up).
  const probe = await pool.acquire()
  let sampleRate: number
  try {
    sampleRate = (await probe.say('Ready.', 1)).sampleRate
    pool.release(probe)
  } catch (err) {
    await pool.close()
    throw err
  }

  async function runPiece(proc: FestivalProcess, ascii: string, piece: TextPiece, rate: number): Promise<PieceResult> {
    const end = piece.start + piece.text.length
    const utt = await proc.say(ascii.slice(piece.start, end), rate)
    if (utt.sampleRate !== sampleRate) {
      throw new SpeechError('engine_failed', `[festival] sample rate changed from ${sampleRate} to ${utt.sampleRate}`)
    }
    const spoken: SpokenWord[] = utt.words
      .filter((w) => w.end > w.start)
      .map((w) => ({ name: w.name, hint: w.token, start: w.start, end: w.end }))
    const words = wordsFromSpoken(piece.text, spoken, ascii.slice(piece.start, end)).map((w) => ({
      ...w,
      charStart: w.charStart + piece.start,
      charEnd: w.charEnd + piece.start,
    }))
    return { samples: utt.samples, words }
  }

  return {
    id: 'festival',
    sampleRate,
    capabilities: {
      languages: ['en', 'en-us'],
      wordTimings: 'exact',
      rate: true,
      rateRange: FESTIVAL_RATE_RANGE,
      pitch: false,
      streaming: 'utterance',
      sampling: [],
    },
    voices: () => VOICES,
    saturated: () => pool.saturated,
    load: () => pool.load,
    processIds: () => ({ all: pool.items.map((p) => p.pid), busy: pool.busyItems.map((p) => p.pid) }),
    async *synthesize(request: SynthesisRequest, callOptions = {}) {
      if (request.voice !== 'slt') {
        throw new SpeechError('bad_request', `[festival] unknown voice "${request.voice}"; the only voice is "slt"`)
      }
      const pieces = splitSentences(request.text)
      if (pieces.length === 0) return
      const ascii = toAsciiText(request.text)
      const rate = request.rate ?? 1
      const hts = htsRate(rate)
      // Stops pieces still in flight when the caller stops reading: their process is killed, not waited for.
      const stop = new AbortController()
      const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, stop.signal]) : stop.signal
      const deadline = callOptions.deadline ?? performance.now()
      let audioSec = 0
      // A process is taken per sentence, not per call: a request waiting for its first audio gets the next free
      // process instead of waiting for other requests' whole chunks. Later sentences of this call are due later.
      const run = async (piece: TextPiece): Promise<PieceResult> => {
        const proc = await pool.acquire(signal, deadline + audioSec * 1000)
        try {
          const result = await raceAbort(runPiece(proc, ascii, piece, hts), signal)
          audioSec += result.samples.length / sampleRate
          return result
        } finally {
          if (proc.alive && proc.pending === 0) pool.release(proc)
          else pool.discard(proc)
        }
      }
      try {
        yield* synthesizePieces(pieces, run, { sampleRate, signal: callOptions.signal, rate })
      } finally {
        stop.abort()
      }
    },
    close: () => pool.close(),
  }
}

createFestivalEngine satisfies TtsEngineFactory
