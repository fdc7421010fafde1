// The Transcribe panel: audio in, transcript out with its segments on a timeline; a segment plays its part.
import { api, PlaygroundError } from './api.js'
import { recordButton } from './recorder.js'
import { $, el, formatTime, guard, showError } from './ui.js'

interface Segment {
  text: string
  start: number
  end: number
}

let audioFile: File | undefined
let stopAt = Infinity

function playSegment(s: Segment, index: number): void {
  const audio = $<HTMLAudioElement>('asr-audio')
  document.querySelectorAll('.segment-button').forEach((b, i) => b.classList.toggle('now', i === index))
  stopAt = s.end
  audio.currentTime = s.start
  void audio.play().catch(() => showError('The browser could not play this file; it may use a codec it lacks.'))
}

function render(result: { text: string; duration: number; segments: Segment[] }): void {
  $('asr-text').textContent = result.text || '(no speech found)'
  const span = Math.max(result.duration, 0.001)
  const timeline = $('asr-timeline')
  const list = $('asr-segments')
  timeline.replaceChildren(...result.segments.map((s) => {
    const bar = el('div', { className: 'bar', title: s.text })
    bar.style.left = `${(s.start / span) * 100}%`
    bar.style.width = `${Math.max(0.5, ((s.end - s.start) / span) * 100)}%`
    return bar
  }))
  list.replaceChildren(...result.segments.map((s, i) => {
    const button = el('button', { type: 'button', className: 'segment-button' },
      el('span', { className: 'time', textContent: `${formatTime(s.start)}–${formatTime(s.end)}` }), ' ', s.text)
    button.setAttribute('aria-label', `Play ${formatTime(s.start)} to ${formatTime(s.end)}: ${s.text}`)
    button.addEventListener('click', () => playSegment(s, i))
    return el('li', {}, button)
  }))
  $('asr-out').hidden = false
}

function useAudio(file: File | undefined): void {
  audioFile = file
  if (file) $<HTMLAudioElement>('asr-audio').src = URL.createObjectURL(file)
}

export function initTranscribe(): void {
  const input = $<HTMLInputElement>('asr-file')
  const audio = $<HTMLAudioElement>('asr-audio')
  input.addEventListener('change', () => useAudio(input.files?.[0]))
  recordButton($<HTMLButtonElement>('asr-record'), (f) => useAudio(f), showError)
  // A segment's play stops at its end; the player's own controls play on freely.
  audio.addEventListener('timeupdate', () => {
    if (audio.currentTime >= stopAt) {
      audio.pause()
      stopAt = Infinity
    }
  })
  $('asr-form').addEventListener('submit', (event) => {
    event.preventDefault()
    void guard(async () => {
      if (!audioFile) throw new PlaygroundError(0, 'Choose an audio file, or record one, to transcribe.')
      const form = new FormData()
      form.append('audio', audioFile, audioFile.name)
      const language = $<HTMLSelectElement>('asr-language').value
      if (language) form.append('language', language)
      form.append('ignore_timestamps', 'false')
      const state = $('asr-state')
      state.textContent = 'Transcribing…'
      const button = $<HTMLButtonElement>('asr-go')
      button.disabled = true
      try {
        render(await (await api('/v1/asr', { method: 'POST', body: form })).json())
        state.textContent = 'Transcribed. Press a segment to hear it.'
      } catch (err) {
        state.textContent = ''
        throw err
      } finally {
        button.disabled = false
      }
    })
  })
}
