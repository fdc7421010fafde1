// The Speak panel: text, voice and options in, streamed speech with word timing out.
import { $, guard, showError } from './ui.js'
import { SpeechView } from './speech-view.js'
import { initTagHelp } from './tag-help.js'
import { initVoicePicker, selectedVoice } from './voice-picker.js'

export function initSpeak(): void {
  const text = $<HTMLTextAreaElement>('speak-text')
  const model = $<HTMLSelectElement>('speak-model')
  const speed = $<HTMLInputElement>('speak-speed')
  const go = $<HTMLButtonElement>('speak-go')
  const stop = $<HTMLButtonElement>('speak-stop')
  const view = new SpeechView($('speak-out'))
  let running: AbortController | undefined
  initVoicePicker()
  initTagHelp(text, model)
  speed.addEventListener('input', () => ($('speed-value').textContent = Number(speed.value).toFixed(2)))
  stop.addEventListener('click', () => running?.abort())
  $('speak-form').addEventListener('submit', (event) => {
    event.preventDefault()
    if (text.value.trim() === '') {
      showError('Type some text to speak in the "Text" box first.')
      text.focus()
      return
    }
    running?.abort()
    const controller = (running = new AbortController())
    go.disabled = true
    stop.disabled = false
    const voice = selectedVoice()
    void guard(() => view.run({
      model: model.value,
      format: $<HTMLSelectElement>('speak-format').value,
      body: {
        text: text.value,
        ...(voice && { reference_id: voice }),
        latency: $<HTMLSelectElement>('speak-latency').value,
        normalize: $<HTMLInputElement>('speak-normalize').checked,
        prosody: { speed: Number(speed.value) },
      },
    }, controller.signal)).finally(() => {
      go.disabled = false
      stop.disabled = true
    })
  })
}
