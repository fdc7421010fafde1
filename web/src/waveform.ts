// Draws the speech's waveform with its words on a timeline below it, and a playhead.

export interface TimedWord {
  text: string
  start: number
  end: number
}

/** Peaks of 10 ms buckets, kept as audio arrives, so a redraw never walks every sample. */
export class Peaks {
  private readonly bucket: number
  readonly max: number[] = []
  private filled = 0

  constructor(rate: number) {
    this.bucket = Math.max(1, Math.round(rate / 100))
  }

  add(samples: Int16Array): void {
    for (const v of samples) {
      const b = Math.floor(this.filled / this.bucket)
      const a = Math.abs(v) / 32768
      if (b >= this.max.length) this.max.push(a)
      else if (a > this.max[b]!) this.max[b] = a
      this.filled++
    }
  }
}

const WAVE_H = 70
const WORDS_H = 34

export function drawWaveform(canvas: HTMLCanvasElement, peaks: Peaks, durationSec: number, words: TimedWord[], position: number): void {
  const ratio = window.devicePixelRatio || 1
  const width = canvas.clientWidth || 600
  const height = WAVE_H + WORDS_H
  if (canvas.width !== Math.round(width * ratio)) {
    canvas.width = Math.round(width * ratio)
    canvas.height = Math.round(height * ratio)
  }
  const g = canvas.getContext('2d')
  if (!g) return
  g.setTransform(ratio, 0, 0, ratio, 0, 0)
  g.clearRect(0, 0, width, height)
  const span = Math.max(durationSec, 1)
  const x = (sec: number) => (sec / span) * width
  g.fillStyle = '#1a56a8'
  const mid = WAVE_H / 2
  const columns = Math.max(1, Math.floor(width))
  for (let c = 0; c < columns; c++) {
    const from = Math.floor(((c / width) * span) * 100)
    const to = Math.max(from + 1, Math.floor((((c + 1) / width) * span) * 100))
    let m = 0
    for (let b = from; b < to && b < peaks.max.length; b++) m = Math.max(m, peaks.max[b]!)
    const h = Math.max(m * (WAVE_H - 6), m > 0 ? 1 : 0)
    g.fillRect(c, mid - h / 2, 1, h)
  }
  g.font = '12px system-ui, sans-serif'
  g.textBaseline = 'middle'
  for (const w of words) {
    const left = x(w.start)
    const right = Math.max(left + 2, x(w.end))
    const now = position >= w.start && position < w.end
    g.fillStyle = now ? '#ffd54a' : '#e6ecf5'
    g.fillRect(left, WAVE_H + 4, right - left - 1, WORDS_H - 8)
    g.save()
    g.beginPath()
    g.rect(left, WAVE_H, right - left - 1, WORDS_H)
    g.clip()
    g.fillStyle = '#111'
    g.fillText(w.text, left + 2, WAVE_H + WORDS_H / 2)
    g.restore()
  }
  g.fillStyle = '#c62828'
  g.fillRect(x(position), 0, 2, height)
}
