import { resampleAll } from '../../../audio/resample.js'
import { SpeechError } from '../../../errors.js'
import type { NeuralEngineOptions, UpstreamSettings } from '../neural/settings.js'
import { timeWords } from '../neural/timing.js'
import { concatSamples } from '../../../audio/signal.js'
import { createPocketsphinxAligner } from '../../asr/pocketsphinx/index.js'
import type { WordAligner } from '../../asr/types.js'
import type { SynthesisRequest, TtsEngine, TtsVoice } from '../types.js'
import { WavStreamReader } from './wav-stream.js'

/**
 * Synthesis forwarded to a Fish-compatible server: fish-speech's `tools/api_server.py`, another Parla, or
 * the Fish cloud. Parla sends `POST /v1/tts` with `streaming: true` and `format: wav` (the only streamed
 * format fish-speech serves), reads PCM as it arrives, and adds what the upstream lacks (word timing, the
 * live socket, limits). Failures before the first byte are retried; an abort closes the connection, which
 * is how the upstream learns to stop.
 */
export async function createUpstreamEngine(options: NeuralEngineOptions = {}): Promise<TtsEngine> {
  const settings = options.neural?.upstream
  const voices: TtsVoice[] = settings ? settings.voices.map((id) => ({
    id,
    title: id === 'default' ? `upstream ${new URL(settings.url).host}` : `${id} (upstream)`,
    languages: settings.languages,
    gender: 'unknown' as const,
    description: `Fish-compatible upstream at ${new URL(settings.url).host}${id === 'default' ? '' : `, reference_id ${id}`}`,
  })) : []
  const rate = settings?.sampleRate ?? 44_100
  // Word times by forced alignment when the upstream speaks English (or does not say); see neural/timing.ts.
  const english = !settings?.languages.length || settings.languages.some((l) => l.startsWith('en'))
  let aligner: WordAligner | undefined
  return {
    id: 'upstream',
    sampleRate: rate,
    capabilities: { languages: settings?.languages ?? [], wordTimings: 'estimated', rate: false, pitch: false, streaming: 'incremental', sampling: ['temperature', 'topP', 'repetitionPenalty', 'maxNewTokens'], cloning: 'references' },
    voices: () => voices,
    async *synthesize(request: SynthesisRequest, options = {}) {
      if (!settings) throw new SpeechError('engine_failed', '[upstream] no upstream is configured (upstreamUrl)')
      if (!voices.some((v) => v.id === request.voice)) throw new SpeechError('bad_request', `[upstream] unknown voice "${request.voice}"`)
      if (request.text.trim() === '') return
      const controller = new AbortController()
      const onAbort = () => controller.abort(options.signal!.reason)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const body = await connect(settings, request, controller.signal, options.signal)
        const reader = new WavStreamReader()
        const pieces: Float32Array[] = []
        for await (const bytes of body) {
          const raw = reader.push(bytes)
          if (raw.length === 0) continue
          const samples = resampleAll(raw, reader.sampleRate, rate)
          pieces.push(samples)
          yield { samples, words: [] }
        }
        // The upstream is done: the caller may start its next call while this one's words are timed.
        yield { samples: new Float32Array(0), words: [], final: true }
        if (options.words === false) return
        if (english) aligner ??= createPocketsphinxAligner()
        const words = await timeWords(request.text, concatSamples(pieces), rate, aligner, options.signal)
        if (words.length > 0) yield { samples: new Float32Array(0), words }
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason
        if (err instanceof SpeechError) throw err
        throw new SpeechError('engine_failed', `[upstream] ${settings.url}: ${err instanceof Error ? err.message : String(err)}`)
      } finally {
        options.signal?.removeEventListener('abort', onAbort)
        // Closes the connection if the upstream is still sending (abort, or the consumer stopped early).
        controller.abort()
      }
    },
    close: async () => aligner?.close(),
  }
}

/** Opens the stream, retrying network errors, 429 and 5xx until the first byte; then the response is committed. */
async function connect(settings: UpstreamSettings, request: SynthesisRequest, signal: AbortSignal, caller?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  let lastError = ''
  for (let attempt = 0; attempt <= settings.retries; attempt++) {
    if (caller?.aborted) throw caller.reason
    const timeout = AbortSignal.timeout(settings.timeoutSec * 1000)
    try {
      const res = await fetch(new URL('/v1/tts', settings.url), {
        method: 'POST',
        signal: AbortSignal.any([signal, timeout]),
        headers: { 'content-type': 'application/json', model: settings.model, ...(settings.key && { authorization: `Bearer ${settings.key}` }) },
        body: JSON.stringify({
          text: request.text,
          format: 'wav',
          streaming: true,
          ...(request.voice !== 'default' && !request.references?.length && { reference_id: request.voice }),
          // fish-speech's ServeReferenceAudio: {audio: bytes, text}; base64 in JSON.
          ...(request.references?.length && { references: request.references.map((r) => ({ audio: Buffer.from(r.audio).toString('base64'), text: r.text })) }),
          ...(request.sampling?.temperature !== undefined && { temperature: request.sampling.temperature }),
          ...(request.sampling?.topP !== undefined && { top_p: request.sampling.topP }),
          ...(request.sampling?.repetitionPenalty !== undefined && { repetition_penalty: request.sampling.repetitionPenalty }),
          ...(request.sampling?.maxNewTokens !== undefined && { max_new_tokens: request.sampling.maxNewTokens }),
        }),
      })
      if (res.ok && res.body) return res.body as unknown as AsyncIterable<Uint8Array>
      const text = (await res.text().catch(() => '')).slice(0, 300)
      lastError = `HTTP ${res.status}: ${text}`
      if (res.status !== 429 && res.status < 500) throw new SpeechError('engine_failed', `[upstream] ${settings.url} refused the request (${lastError})`)
    } catch (err) {
      if (err instanceof SpeechError || caller?.aborted) throw err
      lastError = timeout.aborted ? `no answer within ${settings.timeoutSec} s` : (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : String(err)
    }
  }
  throw new SpeechError('engine_failed', `[upstream] ${settings.url} failed after ${settings.retries + 1} attempts: ${lastError}`)
}
