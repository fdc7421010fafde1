// The Dictate button: the microphone streamed to Parla's live transcription (an OpenAI Realtime transcription
// session at /v1/realtime), each turn's words shown in grey as they settle and in black once the turn is final.
import { getKey } from './api.js'
import { startMicPcm, type MicPcm } from './mic-pcm.js'
import { $, el, showError } from './ui.js'

/** Seconds of audio per message. */
const PIECE_SEC = 0.1
/** A browser cannot set headers on a WebSocket: the key rides in a subprotocol, as OpenAI's browser client sends it. */
const KEY_PROTOCOL = 'openai-insecure-api-key.'

interface ServerEvent {
  type: string
  item_id?: string
  delta?: string
  transcript?: string
  error?: { message?: string }
}

const base64 = (bytes: Uint8Array): string => {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** One dictation: the socket, the microphone, and the words of each turn on the page. */
class Dictation {
  readonly #ws: WebSocket
  readonly #out = $('dictate-text')
  readonly #state = $('dictate-state')
  readonly #mic: Promise<MicPcm | undefined>
  /** Audio heard before the session is configured, sent once it is (the first word is not lost). */
  #waiting: Uint8Array[] | undefined = []
  #finishing = false
  /** Items the server's VAD ended (they had speech_stopped); the one Stop committed has none. */
  readonly #stopped = new Set<string>()
  #last: string | undefined

  constructor(key: string, stream: MediaStream, done: () => void) {
    const url = `${location.origin.replace(/^http/, 'ws')}/v1/realtime?intent=transcription`
    this.#ws = new WebSocket(url, ['realtime', `${KEY_PROTOCOL}${key}`])
    this.#ws.onmessage = (e) => this.#event(JSON.parse(String(e.data)) as ServerEvent)
    this.#mic = startMicPcm(stream, PIECE_SEC, (pcm) => this.#append(pcm)).catch((err: Error) => {
      stream.getTracks().forEach((t) => t.stop())
      showError(`The page could not read the microphone: ${err.message}`)
      this.#ws.close(1000)
      return undefined
    })
    // The session takes the microphone's own rate (Parla resamples it once).
    this.#ws.onopen = async () => {
      const mic = await this.#mic
      if (!mic || this.#ws.readyState !== WebSocket.OPEN) return
      const language = $<HTMLSelectElement>('asr-language').value
      const input = { format: { type: 'audio/pcm', rate: mic.rate }, ...(language ? { transcription: { language } } : {}), turn_detection: { type: 'server_vad' } }
      this.#send({ type: 'session.update', session: { type: 'transcription', audio: { input } } })
    }
    this.#ws.onclose = async (e) => {
      const configured = this.#waiting === undefined
      await (await this.#mic)?.stop()
      if (!this.#finishing && e.code !== 1000) {
        showError(configured ? `Live transcription stopped: ${e.reason || `the connection closed (${e.code})`}.`
          : 'Live transcription did not connect: check the API key, then try again.')
      }
      this.#state.textContent = this.#finishing ? 'Done.' : ''
      done()
    }
  }

  /** Stop: the microphone ends, and the turn under way is committed; the socket closes when it is final. */
  async stop(): Promise<void> {
    if (this.#finishing) return
    this.#finishing = true
    this.#state.textContent = 'Finishing the last words…'
    const rest = await (await this.#mic)?.stop()
    if (rest && rest.length > 0) this.#append(rest)
    if (this.#waiting) this.#ws.close(1000)
    else if (this.#ws.readyState === WebSocket.OPEN) this.#send({ type: 'input_audio_buffer.commit' })
  }

  /** The session is configured: what the microphone heard so far goes out, then each 100 ms as it comes. */
  #configured(): void {
    const waiting = this.#waiting ?? []
    this.#waiting = undefined
    for (const pcm of waiting) this.#append(pcm)
    if (!this.#finishing) this.#state.textContent = 'Listening… speak, then press Stop dictating.'
  }

  #append(pcm: Uint8Array): void {
    if (this.#waiting) this.#waiting.push(pcm)
    else if (this.#ws.readyState === WebSocket.OPEN) this.#send({ type: 'input_audio_buffer.append', audio: base64(pcm) })
  }

  #send(event: object): void {
    this.#ws.send(JSON.stringify(event))
  }

  /** The turn's words on the page: grey while partial (hidden from screen readers), black and announced when final. */
  #turn(item: string): HTMLElement {
    let span = this.#out.querySelector<HTMLElement>(`[data-item="${CSS.escape(item)}"]`)
    if (!span) {
      span = el('span', { className: 'partial' })
      span.dataset.item = item
      span.setAttribute('aria-hidden', 'true')
      this.#out.append(span)
    }
    return span
  }

  #final(item: string, text: string): void {
    const partial = this.#turn(item)
    const final = el('span', { className: 'final', textContent: text })
    final.dataset.item = item
    if (text) partial.replaceWith(final, ' ')
    else partial.remove()
  }

  #event(e: ServerEvent): void {
    const item = e.item_id ?? ''
    switch (e.type) {
      case 'session.updated':
        return this.#configured()
      case 'input_audio_buffer.speech_started':
        this.#turn(item)
        return
      case 'input_audio_buffer.speech_stopped':
        this.#stopped.add(item)
        return
      case 'input_audio_buffer.committed':
        if (this.#finishing && !this.#stopped.has(item)) this.#last = item
        return
      case 'conversation.item.input_audio_transcription.delta':
        this.#turn(item).append(e.delta ?? '')
        return
      case 'conversation.item.input_audio_transcription.completed':
        this.#final(item, e.transcript ?? '')
        if (item === this.#last) this.#ws.close(1000)
        return
      case 'conversation.item.input_audio_transcription.failed':
        this.#turn(item).remove()
        showError(`A turn could not be transcribed: ${e.error?.message ?? 'the server failed'}`)
        if (item === this.#last) this.#ws.close(1000)
        return
      case 'error':
        // After Stop, "nothing to commit" means the server had already ended the last turn.
        if (this.#finishing) this.#ws.close(1000)
        else showError(`Live transcription: ${e.error?.message ?? 'the server refused an event'}`)
    }
  }
}

/** The button toggles a dictation; aria-pressed and the label say whether it runs. */
export function initDictate(): void {
  const button = $<HTMLButtonElement>('dictate-go')
  let current: Dictation | undefined
  let asking = false
  const idle = () => {
    current = undefined
    button.textContent = 'Dictate'
    button.setAttribute('aria-pressed', 'false')
  }
  button.addEventListener('click', async () => {
    // Stop while finishing, or a second press while the browser asks for the microphone, changes nothing.
    if (current) return current.stop()
    if (asking) return
    showError('')
    const key = getKey()
    if (!key) return showError('Enter your API key in the "API key" box at the top first.')
    if (!navigator.mediaDevices?.getUserMedia) return showError('This browser cannot use the microphone here. It needs https or http://127.0.0.1.')
    let stream: MediaStream
    asking = true
    try {
      // The recogniser wants the voice as the microphone hears it: the browser's gain control clips it when
      // it boosts, and its noise suppression eats the quiet ends of words.
      stream = await navigator.mediaDevices.getUserMedia({ audio: { autoGainControl: false, noiseSuppression: false, echoCancellation: false } })
    } catch {
      return showError('The microphone is not available: allow this page to use it in the browser.')
    } finally {
      asking = false
    }
    $('dictate-text').replaceChildren()
    current = new Dictation(key, stream, idle)
    button.textContent = 'Stop dictating'
    button.setAttribute('aria-pressed', 'true')
  })
}
