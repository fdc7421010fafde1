import type { Deps } from '../../deps.js'
import type { Principal } from '../../principal.js'
import { builtinModelId, listBuiltinVoices } from '../../voices/builtin.js'
import type { ModelRoute } from './model-routing.js'
import { voiceMap } from './voice-map.js'

export interface VoiceEntry {
  readonly id: string
  readonly name: string
  readonly languages: readonly string[]
  /** For OpenAI names: the Parla voice model id it speaks with. */
  readonly voice?: string
}

const PAGE = { pageNumber: 1, tags: [], languages: [], titleLanguages: [], sortBy: 'created_at' } as const

/**
 * The `voice` of an OpenAI request as a Parla voice model id: an OpenAI name through the voice table (or,
 * when `model` names an engine, that engine's voice); a Parla voice model id as it is; otherwise the title of
 * a voice model the caller can use (own first, then public). Anything else is left for the TTS service to
 * refuse with a 404 that names it.
 */
export function createVoicePicker(deps: Deps) {
  const map = voiceMap(deps.config.openaiVoices)
  const byTitle = async (name: string, principal: Principal): Promise<string | undefined> => {
    for (const self of [true, false]) {
      const page = await deps.models.list(principal.accountId, { ...PAGE, pageSize: 100, title: name, self })
      const hit = page.items.find((m) => m.title.toLowerCase() === name.toLowerCase() && m.state === 'trained')
      if (hit) return hit.id
    }
    return undefined
  }
  return {
    map,
    async pick(voice: string, route: ModelRoute, principal: Principal): Promise<string> {
      const name = voice.trim()
      const mapped = map[name.toLowerCase()]
      if (mapped) {
        if (!route.engine || mapped.startsWith(`${route.engine}-`)) return mapped
        const engine = await deps.speech.engines.get(route.engine)
        return builtinModelId(engine.id, engine.voices()[0]!.id)
      }
      if (await deps.speech.catalog.find(name)) return name
      const exists = await deps.models.get(principal.accountId, name).then(() => true, () => false)
      return exists ? name : (await byTitle(name, principal)) ?? name
    },
    /** OpenAI names first (what most clients offer), then every voice model the caller can use. */
    async list(principal: Principal): Promise<VoiceEntry[]> {
      const entries: VoiceEntry[] = Object.entries(map).map(([id, voice]) => ({ id, name: `${id} (${voice})`, languages: ['en'], voice }))
      const seen = new Set<string>()
      for (const self of [true, false]) {
        for (let pageNumber = 1; ; pageNumber++) {
          const page = await deps.models.list(principal.accountId, { ...PAGE, pageNumber, pageSize: 100, self })
          for (const m of page.items) {
            if (m.state !== 'trained' || seen.has(m.id)) continue
            seen.add(m.id)
            entries.push({ id: m.id, name: m.title, languages: m.languages })
          }
          if (pageNumber * 100 >= page.total || page.items.length === 0) break
        }
      }
      // Built-in voices are listed as models once the server seeded them; before that (and in tests) from the engines.
      for (const b of await listBuiltinVoices(deps.speech.engines)) {
        if (!seen.has(b.modelId)) entries.push({ id: b.modelId, name: b.voice.title, languages: b.voice.languages })
      }
      return entries
    },
  }
}

export type VoicePicker = ReturnType<typeof createVoicePicker>
