/**
 * What a festival process prints on stdout under Parla's script (`scheme.ts`): marker lines, and after
 * `@@WAVE` one RIFF file (self-delimiting: its header holds its size). Other lines are festival's own
 * chatter and are ignored.
 */

export interface FestivalWord {
  readonly name: string
  /** The token the word came from (`25` for `twenty`), punctuation stripped. */
  readonly token: string
  readonly start: number
  readonly end: number
}

export type FestivalEvent =
  | { readonly type: 'ready' }
  | { readonly type: 'no-voice' }
  | { readonly type: 'word'; readonly word: FestivalWord }
  | { readonly type: 'wave'; readonly bytes: Uint8Array }
  | { readonly type: 'ok' | 'err'; readonly id: string }

export class FestivalOutput {
  #buffer: Buffer = Buffer.alloc(0)
  #inWave = false

  push(data: Buffer): FestivalEvent[] {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, data]) : data
    const events: FestivalEvent[] = []
    for (;;) {
      if (this.#inWave) {
        if (this.#buffer.length < 8) break
        const total = 8 + this.#buffer.readUInt32LE(4)
        if (this.#buffer.length < total) break
        events.push({ type: 'wave', bytes: this.#buffer.subarray(0, total) })
        this.#buffer = this.#buffer.subarray(total)
        this.#inWave = false
        continue
      }
      const nl = this.#buffer.indexOf(10)
      if (nl < 0) break
      const line = this.#buffer.toString('utf8', 0, nl)
      this.#buffer = this.#buffer.subarray(nl + 1)
      const event = parseLine(line)
      if (event?.type === 'wave') this.#inWave = true
      else if (event) events.push(event)
    }
    return events
  }
}

function parseLine(line: string): FestivalEvent | { type: 'wave' } | undefined {
  const at = line.indexOf('@@')
  if (at < 0) return undefined
  const [marker, ...rest] = line.slice(at + 2).split('\t')
  if (marker === 'READY') return { type: 'ready' }
  if (marker === 'NOVOICE') return { type: 'no-voice' }
  if (marker === 'WAVE') return { type: 'wave' }
  if (marker === 'W' && rest.length === 4) {
    const [name, token, start, end] = rest as [string, string, string, string]
    return { type: 'word', word: { name, token, start: Number(start), end: Number(end) } }
  }
  const m = /^(OK|ERR) (\S+)$/.exec(marker ?? '')
  if (m) return { type: m[1] === 'OK' ? 'ok' : 'err', id: m[2]! }
  return undefined
}
