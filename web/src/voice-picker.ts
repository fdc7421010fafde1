// The voice list of the Speak panel: built-in, public and own voices from /model, searchable, samples playable.
import { hasNaturalVoice, SUGGESTED_VOICE } from '../../src/models/natural-hint.js'
import { blobUrl, getJson, type VoiceModel } from './api.js'
import { $, el, guard } from './ui.js'

let voices: VoiceModel[] = []

export const selectedVoice = (): string => $<HTMLSelectElement>('voice-select').value

/** Loads every voice the key can see: public ones (built-ins among them) and the account's own. */
export async function loadVoices(): Promise<void> {
  const page = async (query: string) => {
    const out: VoiceModel[] = []
    for (let n = 1; n <= 20; n++) {
      const list = await getJson<{ total: number; items: VoiceModel[] }>(`/model?page_size=100&page_number=${n}&${query}`)
      out.push(...list.items)
      if (out.length >= list.total || list.items.length === 0) break
    }
    return out
  }
  const [own, visible] = await Promise.all([page('self=true'), page('sort_by=created_at')])
  const seen = new Set<string>()
  voices = [...own, ...visible].filter((v) => !seen.has(v._id) && seen.add(v._id) && v.state === 'trained')
  showNaturalHint(!hasNaturalVoice(voices.map((v) => v._id)))
  render()
}

/** Only the classic voices: say how the server's operator gets a natural one (the server log says the same). */
function showNaturalHint(show: boolean): void {
  const hint = $('natural-hint')
  hint.hidden = !show
  if (show) {
    hint.replaceChildren('No neural voice is installed, so these voices sound synthetic. For natural speech, run ',
      el('code', { textContent: `parla models pull ${SUGGESTED_VOICE}` }), ' on the server (',
      el('code', { textContent: 'parla models catalog' }), ' lists more voices and languages).')
  }
}

function render(): void {
  const select = $<HTMLSelectElement>('voice-select')
  const previous = select.value
  const term = $<HTMLInputElement>('voice-search').value.trim().toLowerCase()
  const matching = voices.filter((v) => !term || `${v.title} ${v.tags.join(' ')} ${v._id}`.toLowerCase().includes(term))
  const auto = el('option', { value: '', textContent: 'Automatic (by the text\'s language)' })
  select.replaceChildren(auto, ...matching.map((v) => el('option', { value: v._id, textContent: `${v.title} (${v.tags.slice(0, 3).join(', ') || v._id})` })))
  select.value = matching.some((v) => v._id === previous) ? previous : ''
  $<HTMLButtonElement>('voice-sample').disabled = !voices.find((v) => v._id === select.value)?.samples.length
}

export function initVoicePicker(): void {
  $('voice-search').addEventListener('input', render)
  $('voice-select').addEventListener('change', render)
  $('voice-sample').addEventListener('click', () => guard(async () => {
    const voice = voices.find((v) => v._id === selectedVoice())
    const sample = voice?.samples[0]
    if (!sample) return
    const audio = $<HTMLAudioElement>('sample-audio')
    audio.src = await blobUrl(sample.audio)
    await audio.play()
  }))
  render()
}
