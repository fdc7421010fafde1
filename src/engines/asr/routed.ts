import { SpeechError } from '../../errors.js'
import type { AsrEngine, LiveCallOptions } from './types.js'

/**
 * Several ASR engines behind one, chosen by the request's language (`asrEngine` with `<language>=<engine>`
 * entries): languages are the union, the `*` engine (or the first entry) answers when the language is left to
 * detection (`auto`), and is given its first language when it cannot detect. All engines take 16 kHz audio;
 * utterances are cut to the shortest engine's limit.
 */
export function createRoutedAsrEngine(routes: readonly { readonly language: string; readonly engine: AsrEngine }[]): AsrEngine {
  const fallback = routes.find((r) => r.language === '*') ?? routes[0]!
  const engineFor = (language: string) => {
    const code = language.toLowerCase()
    if (code === 'auto') return fallback.engine
    const base = code.split('-')[0]!
    return (routes.find((r) => r.language === code) ?? routes.find((r) => r.language === base) ??
      routes.find((r) => r.language === '*' && speaks(r.engine, code)) ?? fallback).engine
  }
  const speaks = (engine: AsrEngine, code: string) => engine.capabilities.languages.some((l) => l === code || l === code.split('-')[0])
  const fallbackFirst = [...fallback.engine.capabilities.languages]
  const languages = [...new Set([...fallbackFirst, ...routes.flatMap((r) => (r.language === '*' ? r.engine.capabilities.languages : [r.language]))])]
  const engines = [...new Set(routes.map((r) => r.engine))]
  // `auto` reaches the `*` engine as it is when that engine detects, as its first language otherwise.
  const routedLanguage = (language: string) => language.toLowerCase() !== 'auto' || fallback.engine.capabilities.detectsLanguage ? language : fallback.engine.capabilities.languages[0] ?? 'en'
  return {
    id: engines.map((e) => e.id).join('+'),
    capabilities: {
      languages,
      sampleRate: fallback.engine.capabilities.sampleRate,
      maxUtteranceSeconds: Math.min(...engines.map((e) => e.capabilities.maxUtteranceSeconds)),
      parallelism: Math.min(...engines.map((e) => e.capabilities.parallelism)),
      ...(fallback.engine.capabilities.detectsLanguage && { detectsLanguage: true }),
    },
    transcribe: (samples, options) => engineFor(options.language).transcribe(samples, { ...options, language: routedLanguage(options.language) }),
    // Live utterances go to the language's engine when it decodes incrementally; the session falls back otherwise.
    ...(engines.some((e) => e.openStream) && {
      openStream: (first: Int16Array, options: LiveCallOptions) => {
        const engine = engineFor(options.language)
        options = { ...options, language: routedLanguage(options.language) }
        if (!engine.openStream) return Promise.reject(new SpeechError('unavailable', `[asr] ${engine.id} does not decode live`))
        return engine.openStream(first, options)
      },
    }),
    async ready() {
      await Promise.all(engines.map((e) => e.ready?.()))
    },
    async close() {
      await Promise.all(engines.map((e) => e.close()))
    },
  }
}
