import type { Deps } from '../../deps.js'
import { listBuiltinVoices } from '../../voices/builtin.js'
import { WYOMING_PRINCIPAL } from './principal.js'

const ATTRIBUTION = { name: 'Parla', url: 'https://www.gnu.org/licenses/gpl-3.0.html' }
const PAGE = { pageNumber: 1, pageSize: 100, tags: [], languages: [], titleLanguages: [], sortBy: 'created_at', self: false } as const

/**
 * The `info` answer to `describe`: one TTS program whose voices are the built-in voices and public trained
 * voice models (named by voice model id, which `synthesize` takes as `voice.name`), and one ASR program
 * with the recogniser's languages. Home Assistant builds its voice and language pickers from this and
 * requires `name`, `attribution`, `installed` and `languages` on every entry.
 */
export async function wyomingInfo(deps: Deps): Promise<Record<string, unknown>> {
  const builtin = await listBuiltinVoices(deps.speech.engines)
  const voices = builtin.map((b) => ({
    name: b.modelId,
    description: b.voice.title,
    attribution: ATTRIBUTION,
    installed: true,
    version: null,
    languages: [...b.voice.languages],
    speakers: null,
  }))
  const seen = new Set(voices.map((v) => v.name))
  const models = await deps.models.list(WYOMING_PRINCIPAL.accountId, PAGE)
  for (const m of models.items) {
    if (m.state !== 'trained' || seen.has(m.id)) continue
    voices.push({ name: m.id, description: m.title, attribution: ATTRIBUTION, installed: true, version: null, languages: [...m.languages], speakers: null })
  }
  const asr = deps.asr.engine
  return {
    asr: [{
      name: 'parla',
      description: 'Parla speech recognition',
      attribution: ATTRIBUTION,
      installed: true,
      version: '1',
      models: [{ name: asr.id, description: `${asr.id} (${asr.capabilities.languages.join(', ')})`, attribution: ATTRIBUTION, installed: true, version: null, languages: [...asr.capabilities.languages] }],
      // Words that stopped changing go out as transcript-chunk events while the audio comes (mono audio).
      supports_transcript_streaming: true,
    }],
    tts: [{
      name: 'parla',
      description: 'Parla text to speech',
      attribution: ATTRIBUTION,
      installed: true,
      version: '1',
      voices,
      supports_synthesize_streaming: true,
    }],
    handle: [],
    intent: [],
    wake: [],
    mic: [],
    snd: [],
  }
}
