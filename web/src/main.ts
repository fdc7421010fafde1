// The playground's entry: the API key, the tabs, and each panel.
import { getKey, setKey } from './api.js'
import { initClone } from './clone.js'
import { initDictate } from './dictate.js'
import { initSpeak } from './speak.js'
import { initTranscribe } from './transcribe.js'
import { $, guard } from './ui.js'
import { loadVoices } from './voice-picker.js'
import { initVoices, refresh as refreshVoices } from './voices.js'

const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role=tab]')]

function select(tab: HTMLButtonElement): void {
  for (const t of tabs) {
    const on = t === tab
    t.setAttribute('aria-selected', String(on))
    t.tabIndex = on ? 0 : -1
    $(t.getAttribute('aria-controls')!).hidden = !on
  }
  if (tab.id === 'tab-voices') void guard(refreshVoices)
}

function initTabs(): void {
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(tab))
    // Arrow keys move between tabs, as the ARIA tabs pattern expects.
    tab.addEventListener('keydown', (e) => {
      const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0
      if (!step) return
      const next = tabs[(i + step + tabs.length) % tabs.length]!
      select(next)
      next.focus()
    })
  })
}

function initKey(): void {
  const input = $<HTMLInputElement>('api-key')
  const state = $('key-state')
  input.value = getKey()
  const check = () => guard(async () => {
    state.textContent = ''
    await loadVoices()
    state.textContent = 'Key accepted.'
  })
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault()
    setKey(input.value)
    void check()
  })
  if (getKey()) void check()
  else state.textContent = 'Paste the key the server printed on its first start (also in data/api-key).'
}

initTabs()
initSpeak()
initClone()
initTranscribe()
initDictate()
initVoices()
initKey()
