/**
 * Marks that set the prosody or the language from here on, until the next mark of the same kind: what SSML's
 * `<prosody>`, `<emphasis>` and `xml:lang` become (ssml.ts), in the `<|…|>` control syntax the tag scanner
 * already reads. Each mark carries the whole state, so a span's end is simply a mark of the outer state.
 */
export interface MarkupProsody {
  readonly rate: number
  readonly pitchSemitones: number
  readonly volumeDb: number
}

const round = (v: number) => Number(v.toFixed(3))

/** `<|prosody:rate=0.75,pitch=2,volume=-6|>`; neutral is `<|prosody:|>`. */
export function prosodyMark(p: MarkupProsody): string {
  const parts = [
    p.rate !== 1 && `rate=${round(p.rate)}`,
    p.pitchSemitones !== 0 && `pitch=${round(p.pitchSemitones)}`,
    p.volumeDb !== 0 && `volume=${round(p.volumeDb)}`,
  ].filter(Boolean)
  return `<|prosody:${parts.join(',')}|>`
}

/** `<|lang:de|>`; back to detection is `<|lang:|>`. */
export function languageMark(language: string | undefined): string {
  return `<|lang:${language ?? ''}|>`
}

/** The state a mark's body (between `<|` and `|>`) sets, or undefined when it is no such mark. */
export function readMark(body: string): { prosody: MarkupProsody } | { language: string | undefined } | undefined {
  const prosody = /^prosody:((?:(?:rate|pitch|volume)=-?\d+(?:\.\d+)?,?){0,3})$/.exec(body)
  if (prosody) {
    const values = new Map(prosody[1]!.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]))
    return { prosody: { rate: Number(values.get('rate') ?? 1), pitchSemitones: Number(values.get('pitch') ?? 0), volumeDb: Number(values.get('volume') ?? 0) } }
  }
  const language = /^lang:([a-z]{2,3}(?:[-_][a-z0-9]{2,8})*)?$/i.exec(body)
  if (language) return { language: language[1]?.toLowerCase() }
  return undefined
}
