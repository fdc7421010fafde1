// The Clone panel: a reference (uploaded or recorded) with its transcript; speak with it at once through
// `references`, or save it as a voice model and follow its training and quality report.
import { modelForm } from '../../src/api/fish/model-form.js'
import { api, getJson, PlaygroundError, type VoiceModel } from './api.js'
import { recordButton } from './recorder.js'
import { SpeechView } from './speech-view.js'
import { $, el, fileToBase64, guard, showError } from './ui.js'
import { loadVoices } from './voice-picker.js'

let reference: File | undefined

function useReference(file: File | undefined): void {
  reference = file
  const preview = $<HTMLAudioElement>('clone-preview')
  preview.hidden = !file
  if (file) preview.src = URL.createObjectURL(file)
  if (file && !$<HTMLInputElement>('clone-title').value) $<HTMLInputElement>('clone-title').value = file.name.replace(/\.[^.]+$/, '')
}

function needReference(): { file: File; transcript: string } {
  if (!reference) throw new PlaygroundError(0, 'Choose a reference audio file, or record one, first.')
  const transcript = $<HTMLTextAreaElement>('clone-transcript').value.trim()
  if (!transcript) throw new PlaygroundError(0, 'Type what the reference says in "What the reference says"; cloning needs its transcript.')
  return { file: reference, transcript }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function qualityTable(model: VoiceModel): HTMLElement {
  const rows = model.quality.audios.map((a) =>
    el('tr', {}, el('td', { textContent: a.filename }), el('td', { textContent: `${(a.duration_ms / 1000).toFixed(1)} s` }),
      el('td', { textContent: a.quality_passed ? 'passed' : 'not passed' }), el('td', { textContent: a.quality_reason || '—' })))
  const head = el('tr', {}, ...['Sample', 'Duration', 'Quality', 'Reason'].map((h) => el('th', { scope: 'col', textContent: h })))
  return el('table', { className: 'quality' }, el('caption', { textContent: 'Quality per sample' }), el('thead', {}, head), el('tbody', {}, ...rows))
}

async function save(): Promise<void> {
  const { file, transcript } = needReference()
  const title = $<HTMLInputElement>('clone-title').value.trim()
  if (!title) throw new PlaygroundError(0, 'Give the voice a title in "Title" before saving it.')
  const form = modelForm({ title, voices: [{ blob: file, name: file.name }], texts: [transcript], visibility: 'private' })
  const state = $('clone-state')
  state.textContent = 'Uploading…'
  let model = (await (await api('/model', { method: 'POST', body: form })).json()) as VoiceModel
  // Training runs in the background; its state is read until it settles.
  while (model.state === 'created' || model.state === 'training') {
    state.textContent = `Voice "${model.title}": ${model.state}…`
    await sleep(700)
    model = await getJson<VoiceModel>(`/model/${encodeURIComponent(model._id)}`)
  }
  state.textContent = model.state === 'trained'
    ? `Voice "${model.title}": trained. It is now in the Speak panel's voice list.`
    : `Voice "${model.title}": ${model.state}. ${model.state_reason ?? ''}`
  state.dataset.state = model.state
  $('clone-quality').replaceChildren(qualityTable(model))
  await loadVoices()
}

export function initClone(): void {
  const view = new SpeechView($('clone-out'))
  const file = $<HTMLInputElement>('clone-file')
  file.addEventListener('change', () => useReference(file.files?.[0]))
  recordButton($<HTMLButtonElement>('clone-record'), (f) => useReference(f), showError)
  $('clone-save').addEventListener('click', () => guard(save))
  $('clone-form').addEventListener('submit', (event) => {
    event.preventDefault()
    void guard(async () => {
      const { file: audio, transcript } = needReference()
      const text = $<HTMLTextAreaElement>('clone-text').value
      if (!text.trim()) throw new PlaygroundError(0, 'Type some text to speak with this voice first.')
      const button = $<HTMLButtonElement>('clone-speak')
      button.disabled = true
      try {
        const references = [{ audio: await fileToBase64(audio), text: transcript }]
        await view.run({ model: 's2-pro', format: 'wav', body: { text, references } }, new AbortController().signal)
      } finally {
        button.disabled = false
      }
    })
  })
}
