import { int16ToFloat32 } from '../../../audio/signal.js'
import { SpeechError } from '../../../errors.js'
import { raceAbort } from '../../../abort.js'
import { ResourcePool } from '../pool.js'
import { Envelope } from '../envelope.js'
import { StreamTrimmer } from '../silence.js'
import type { SynthesisRequest, TtsEngine, TtsEngineFactory, TtsVoice } from '../types.js'
import { EspeakWorker } from './espeak-worker.js'
import { hasKanji, toKana } from './japanese.js'
import { escapeSsml } from './ssml.js'
import { pitchForSemitones, RATE_RANGE, toVoices, wordsPerMinute, type EspeakVoice } from './voices.js'
import { WordTracker } from './words.js'

const EDGE_SILENCE = 0.06
/** How long a worker may take to notice the stop flag before it is terminated instead. */
const STOP_GRACE_MS = 1000

/**
 * eSpeak NG (emscripten build) in a small pool of worker threads. Audio streams out in the small pieces
 * eSpeak produces; word events give exact word timings. Abort sets a shared flag that eSpeak's callback
 * checks, so the worker stops within one chunk and stays loaded.
 */
export async function createEspeakEngine(options: { readonly processes?: number } = {}): Promise<TtsEngine> {
  let info: { voices: readonly EspeakVoice[]; sampleRate: number } | undefined
  let poolRef: ResourcePool<EspeakWorker> | undefined
  const pool = await ResourcePool.start<EspeakWorker>({
    name: 'espeak-ng',
    size: options.processes ?? 2,
    create: async () => {
      const started = await EspeakWorker.start()
      info ??= { voices: toVoices(started.voices), sampleRate: started.sampleRate }
      started.worker.onExit(() => poolRef?.discard(started.worker))
      return started.worker
    },
    destroy: (worker) => worker.terminate(),
  })
  poolRef = pool
  const { voices, sampleRate } = info!
  const byId = new Map(voices.map((v) => [v.id, v]))
  const listed: readonly TtsVoice[] = voices.map(({ identifier: _id, ...voice }) => voice)
  const languages = [...new Set(voices.flatMap((v) => v.languages))].sort()

  function release(worker: EspeakWorker): void {
    if (worker.alive) pool.release(worker)
    else pool.discard(worker)
  }

  return {
    id: 'espeak-ng',
    sampleRate,
    capabilities: { languages, wordTimings: 'exact', rate: true, rateRange: RATE_RANGE, pitch: true, streaming: 'incremental', sampling: [] },
    voices: () => listed,
    saturated: () => pool.saturated,
    load: () => pool.load,
    async *synthesize(request: SynthesisRequest, callOptions = {}) {
      const voice = byId.get(request.voice)
      if (!voice) {
        throw new SpeechError('bad_request', `[espeak-ng] unknown voice "${request.voice}"; see voices() for the ids`)
      }
      if (request.text.trim() === '') return
      const { signal, deadline } = callOptions
      const { engineText, toText } = await engineInput(request.text, voice)
      const worker = await pool.acquire(signal, deadline)
      const run = worker.synth({
        text: engineText,
        identifier: voice.identifier,
        wordsPerMinute: wordsPerMinute(request.rate ?? 1),
        pitch: pitchForSemitones(request.pitchSemitones ?? 0),
      })
      // Kept silence scales with the rate like the speech does.
      const edge = EDGE_SILENCE / (request.rate ?? 1)
      const trimmer = new StreamTrimmer(sampleRate, edge, edge)
      const envelope = new Envelope(sampleRate)
      const tracker = new WordTracker(request.text, toText)
      let raw = 0
      let emitted = 0
      const timeline = () => ({ offset: trimmer.offset, envelope, emitted: emitted / sampleRate })
      try {
        for (;;) {
          const m = await raceAbort(run.next(), signal)
          if (m.type === 'done') break
          raw += m.samples.length
          const samples = trimmer.push(int16ToFloat32(m.samples))
          envelope.push(samples)
          emitted += samples.length
          const words = tracker.push(m.events, timeline())
          if (samples.length > 0 || words.length > 0) yield { samples, words }
        }
        const tail = trimmer.end()
        envelope.push(tail)
        emitted += tail.length
        const words = tracker.finish(raw / sampleRate, timeline())
        if (tail.length > 0 || words.length > 0) yield { samples: tail, words, final: true }
      } finally {
        if (run.finished) release(worker)
        else {
          run.stop()
          const timer = setTimeout(() => pool.discard(worker), STOP_GRACE_MS)
          void run.ended.then(() => {
            clearTimeout(timer)
            release(worker)
          })
        }
      }
    },
    close: () => pool.close(),
  }
}

/**
 * The text as eSpeak is given it, with the map from its code points back to the request text. Japanese kanji
 * become kana first (eSpeak's Japanese voice reads kanji as "Chinese letter").
 */
async function engineInput(text: string, voice: EspeakVoice): Promise<{ engineText: string; toText: readonly number[] }> {
  if (!voice.languages.includes('ja') || !hasKanji(text)) return escapeSsml(text)
  const kana = await toKana(text)
  const escaped = escapeSsml(kana.text)
  return { engineText: escaped.engineText, toText: escaped.toText.map((i) => kana.toOriginal[i] ?? text.length) }
}

createEspeakEngine satisfies TtsEngineFactory
