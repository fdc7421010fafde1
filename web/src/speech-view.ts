// One spoken result: streams SSE with word timing, plays it as it arrives, lights up the word being heard, draws
// the waveform with its word timeline, and offers the download. Used by Speak and Clone.
import { api, PlaygroundError } from './api.js'
import { PcmPlayer } from './pcm-player.js'
import { base64Bytes, sseEvents, type StreamingEvent } from './sse.js'
import { el, guard } from './ui.js'
import { drawWaveform, Peaks, type TimedWord } from './waveform.js'
import { pcmBlob, wavBlob } from './wav.js'

/** PCM at a fixed rate: no container or codec delay, so the player's clock is the alignment's clock. */
const RATE = 44_100

export interface SpeakRequest {
  body: Record<string, unknown>
  model: string
  /** Format of the download; playback always streams PCM. */
  format: string
}

let context: AudioContext | undefined
/** One AudioContext for the page, created on the first press (browsers start audio only after a gesture). */
const audioContext = () => (context ??= new AudioContext())

export class SpeechView {
  private readonly status = el('p', { className: 'state', role: 'status' } as Partial<HTMLParagraphElement>)
  private readonly words = el('p', { className: 'words' })
  private readonly canvas = el('canvas', { className: 'wave' })
  private readonly download = el('button', { type: 'button', textContent: 'Download', disabled: true })
  private readonly root: HTMLDivElement
  private player: PcmPlayer | undefined
  private chunks = new Map<number, { offset: number; segments: TimedWord[] }>()
  private timed: TimedWord[] = []
  private spans: HTMLSpanElement[] = []

  constructor(container: HTMLElement) {
    this.words.setAttribute('aria-label', 'Spoken words')
    this.canvas.setAttribute('role', 'img')
    this.canvas.setAttribute('aria-label', 'Waveform with the word timeline')
    // Hidden until the first speech: an empty waveform box says nothing.
    this.root = el('div', { className: 'speech', hidden: true }, this.status, this.words, this.canvas, el('div', { className: 'actions' }, this.download))
    container.replaceChildren(this.root)
  }

  /** Streams and plays; resolves when the stream ended (playback may still go on). */
  async run(request: SpeakRequest, signal: AbortSignal): Promise<void> {
    const ctx = audioContext()
    await ctx.resume()
    this.player?.stop()
    this.root.hidden = false
    this.chunks = new Map()
    this.setWords([])
    this.download.disabled = true
    this.status.textContent = 'Generating…'
    const started = performance.now()
    const response = await api('/v1/tts/stream/with-timestamp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', model: request.model },
      body: JSON.stringify({ ...request.body, format: 'pcm', sample_rate: RATE }),
      signal,
    }).catch((err: unknown) => {
      // Nothing was spoken: the error above the form says why, an empty result box would only confuse.
      this.root.hidden = true
      throw err
    })
    const player = (this.player = new PcmPlayer(ctx, RATE))
    const peaks = new Peaks(RATE)
    let streaming = true
    const frame = () => {
      const position = player.position()
      this.highlight(position)
      drawWaveform(this.canvas, peaks, player.duration, this.timed, position)
      if (streaming || !player.finished()) requestAnimationFrame(frame)
      else this.highlight(Infinity)
    }
    requestAnimationFrame(frame)
    signal.addEventListener('abort', () => player.stop())
    try {
      for await (const event of sseEvents(response.body!)) {
        if (event.audio_base64) {
          const first = player.samples === 0
          peaks.add(player.push(base64Bytes(event.audio_base64)))
          if (first) this.status.textContent = `Playing: first audio after ${Math.round(performance.now() - started)} ms`
        }
        this.takeAlignment(event)
      }
    } catch (err) {
      if (signal.aborted) throw err
      throw new PlaygroundError(0, `The speech stopped half-way (${player.duration.toFixed(1)} s arrived): the connection to the server broke. Try again.`)
    } finally {
      streaming = false
    }
    this.status.textContent = `All received: ${player.duration.toFixed(1)} s of speech, ${this.timed.length} words timed.`
    this.offerDownload(request, player)
  }

  private takeAlignment(event: StreamingEvent): void {
    if (!event.alignment) return
    // Latest snapshot per chunk wins; times are relative to the chunk's own offset.
    this.chunks.set(event.chunk_seq, { offset: event.chunk_audio_offset_sec, segments: event.alignment.segments })
    const words = [...this.chunks.entries()]
      .sort((a, b) => a[0] - b[0])
      .flatMap(([, c]) => c.segments.map((s) => ({ text: s.text, start: s.start + c.offset, end: s.end + c.offset })))
    this.setWords(words)
  }

  private setWords(words: TimedWord[]): void {
    const same = words.length === this.timed.length && words.every((w, i) => w.text === this.timed[i]!.text)
    this.timed = words
    if (same) return
    this.spans = words.map((w) => el('span', { className: 'word', textContent: w.text, title: `${w.start.toFixed(2)} s` }))
    this.spans.forEach((s, i) => (s.dataset.i = String(i)))
    this.words.replaceChildren(...this.spans.flatMap((s) => [s, ' ']))
  }

  private highlight(position: number): void {
    this.timed.forEach((w, i) => {
      const span = this.spans[i]
      if (!span) return
      span.classList.toggle('now', position >= w.start && position < w.end)
      span.classList.toggle('spoken', position >= w.end)
    })
  }

  private offerDownload(request: SpeakRequest, player: PcmPlayer): void {
    const format = request.format
    this.download.textContent = `Download ${format}`
    this.download.disabled = false
    this.download.onclick = () => guard(async () => {
      let blob: Blob
      if (format === 'wav') blob = wavBlob(player.pieces, RATE)
      else if (format === 'pcm') blob = pcmBlob(player.pieces)
      else {
        // Compressed formats are encoded by the server, from the same request.
        const response = await api('/v1/tts', {
          method: 'POST',
          headers: { 'content-type': 'application/json', model: request.model },
          body: JSON.stringify({ ...request.body, format }),
        })
        blob = await response.blob()
      }
      const link = el('a', { href: URL.createObjectURL(blob), download: `parla-speech.${format === 'opus' ? 'ogg' : format}` })
      link.click()
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
    })
  }
}
