import type { LanguageDecision } from '../../text/index.js'

/**
 * How text was assigned its languages, for clients to see why a voice was chosen: `en; confidence=0.93;
 * reason=default`, each language once, in order (`, ` between them). The `x-parla-language` header of
 * `/v1/tts` and the SSE route, and the live socket's `log` frames when a session asks for them.
 */
export function describeLanguages(decisions: Iterable<LanguageDecision>): string | undefined {
  const seen = new Map<string, string>()
  for (const d of decisions) {
    if (!seen.has(d.language)) seen.set(d.language, `${d.language}; confidence=${d.confidence.toFixed(2)}; reason=${d.reason}`)
  }
  return seen.size > 0 ? [...seen.values()].join(', ') : undefined
}
