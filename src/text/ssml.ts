import { SaxesParser, type SaxesTagPlain } from 'saxes'
import { SpeechError } from '../errors.js'
import { MAX_PAUSE_MS, PROSODY_LIMITS } from './tag-table.js'
import { languageMark, prosodyMark, type MarkupProsody } from './markup-marks.js'

/**
 * SSML in, Parla's own markup out. A text whose first element is `<speak>` (after an optional XML
 * declaration) is read as an SSML document and rewritten as text the pipeline already understands: pauses as
 * `[pause 500ms]`, prosody and language spans as marks that set (and, at the element's end, restore) them,
 * and `<voice name>` spans as speakers (`<|speaker:N|>`) whose voice model ids the caller adds to the
 * request's. What Parla cannot do (`<audio>` files, `<phoneme>` strings, `<mark>` events) is read as its text
 * content, as SSML asks of a processor that does not support an element.
 */

/** Whether `text` is an SSML document rather than plain text: `<speak>` first, after an XML prolog if any. */
export function isSsml(text: string): boolean {
  return /^\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!DOCTYPE[^>[]*(?:\[[^\]]*\])?\s*>|<!--[\s\S]*?-->)\s*)*<speak[\s>/]/.test(text)
}

const BREAK_STRENGTH_MS: Readonly<Record<string, number>> = {
  'none': 0, 'x-weak': 100, 'weak': 250, 'medium': 400, 'strong': 700, 'x-strong': 1000,
}
const RATE_WORDS: Readonly<Record<string, number>> = { 'x-slow': 0.5, 'slow': 0.75, 'medium': 1, 'default': 1, 'fast': 1.25, 'x-fast': 1.5 }
const PITCH_WORDS: Readonly<Record<string, number>> = { 'x-low': -6, 'low': -3, 'medium': 0, 'default': 0, 'high': 3, 'x-high': 6 }
const VOLUME_WORDS: Readonly<Record<string, number>> = { 'silent': PROSODY_LIMITS.volumeDb[0], 'x-soft': -12, 'soft': -6, 'medium': 0, 'default': 0, 'loud': 6, 'x-loud': 12 }
const EMPHASIS: Readonly<Record<string, MarkupProsody>> = {
  strong: { rate: 0.85, pitchSemitones: 1.5, volumeDb: 4 },
  moderate: { rate: 0.92, pitchSemitones: 0.75, volumeDb: 2 },
  reduced: { rate: 1.08, pitchSemitones: -0.5, volumeDb: -3 },
  none: { rate: 1, pitchSemitones: 0, volumeDb: 0 },
}
const NEUTRAL: MarkupProsody = { rate: 1, pitchSemitones: 0, volumeDb: 0 }
const SENTENCE_ENDS = /[.!?…。！？]\s*$/

/** Elements whose content is not spoken. */
const SILENT = new Set(['desc', 'mark', 'meta', 'metadata', 'lexicon'])

/** An SSML document read: Parla markup, and the voice model ids its `<voice name>` spans speak with. */
export interface SsmlReading {
  readonly text: string
  /** `voices[i]` speaks the spans marked `<|speaker:firstSpeaker + i|>`. */
  readonly voices: readonly string[]
}

interface Frame {
  readonly name: string
  readonly prosody: MarkupProsody
  readonly language: string | undefined
  readonly speaker: number
  /** `sub`'s alias, spoken instead of the content; `say-as`'s way of reading it. */
  readonly alias?: string
  readonly sayAs?: string
  /** Text collected inside `sub` or `say-as`, rewritten at the element's end. */
  collected?: string
}

/**
 * Rewrites an SSML document as Parla markup; a 422 naming the line and column when it is not well-formed.
 * `firstSpeaker`: the speaker index the first `<voice name>` gets (the request's own speakers come before).
 */
export function readSsml(document: string, firstSpeaker = 1): SsmlReading {
  const parser = new SaxesParser({ xmlns: false, position: true })
  const stack: Frame[] = []
  const voices: string[] = []
  let out = ''
  let failure: string | undefined
  let failureAt = ''
  const top = () => stack[stack.length - 1]
  const emit = (text: string) => {
    const collecting = stack.findLast((f) => f.collected !== undefined)
    if (collecting) collecting.collected += text
    else out += text
  }
  const where = () => `line ${parser.line}, column ${parser.column}`
  const refuse = (message: string, at = where()): never => {
    throw new SpeechError('unusable_input', `text is SSML (it starts with <speak>) but ${message} at ${at}; fix the markup, or send plain text`, { field: ['body', 'text'] })
  }
  const fail = (message: string) => {
    if (failure !== undefined) return
    failure = message.replace(/^\d+:\d+:\s*/, '').replace(/\.$/, '')
    failureAt = where()
  }

  parser.on('error', (err) => fail(err.message))
  parser.on('opentag', (tag: SaxesTagPlain) => {
    if (failure) return
    const name = localName(tag.name)
    const outer = top()
    const prosody = outer?.prosody ?? NEUTRAL
    const language = attribute(tag, 'xml:lang') ?? outer?.language
    if (stack.length === 0 && name !== 'speak') refuse(`its root element is <${tag.name}>, not <speak>`)
    let frame: Frame = { name, prosody, language, speaker: outer?.speaker ?? 0 }
    switch (name) {
      case 'break': {
        const ms = breakMs(tag, refuse)
        if (ms > 0) emit(` [pause ${Math.min(ms, MAX_PAUSE_MS)}ms] `)
        break
      }
      case 'p':
        emit('\n\n')
        break
      case 's':
        emit(' ')
        break
      case 'prosody':
        frame = { ...frame, prosody: combine(prosody, prosodyOf(tag, refuse)) }
        break
      case 'emphasis': {
        const level = attribute(tag, 'level') ?? 'moderate'
        const effect = EMPHASIS[level] ?? refuse(`<emphasis level="${level}"> is not one of strong, moderate, reduced, none`)
        frame = { ...frame, prosody: combine(prosody, effect) }
        break
      }
      case 'sub': {
        const alias = attribute(tag, 'alias')
        if (alias === undefined) refuse('<sub> has no alias attribute (the words to say instead of its content)')
        frame = { ...frame, alias, collected: '' }
        break
      }
      case 'say-as':
        frame = { ...frame, sayAs: (attribute(tag, 'interpret-as') ?? '').toLowerCase(), collected: '' }
        break
      case 'voice': {
        // A voice by name is a voice model id (built-in or the caller's), as in `reference_id`.
        const voice = attribute(tag, 'name')
        if (!voice) break
        if (!voices.includes(voice)) voices.push(voice)
        frame = { ...frame, speaker: firstSpeaker + voices.indexOf(voice) }
        break
      }
    }
    // The marks go before the element joins the stack: a `sub` or `say-as` rewrites only its own words.
    if (frame.speaker !== (outer?.speaker ?? 0)) emit(` <|speaker:${frame.speaker}|> `)
    if (!sameProsody(frame.prosody, prosody)) emit(prosodyMark(frame.prosody))
    if (frame.language !== (outer?.language)) emit(languageMark(frame.language))
    stack.push(frame)
  })
  parser.on('text', (text) => {
    if (failure || stack.length === 0 || stack.some((f) => SILENT.has(f.name))) return
    emit(text)
  })
  parser.on('closetag', () => {
    if (failure) return
    const frame = stack.pop()
    if (!frame) return
    const outer = top()
    if (frame.collected !== undefined) {
      const spoken = frame.alias ?? sayAs(frame.collected, frame.sayAs ?? '')
      frame.collected = undefined
      emit(spoken)
    }
    if (frame.name === 's' && !SENTENCE_ENDS.test(out)) emit('.')
    if (frame.name === 's') emit(' ')
    if (frame.name === 'p') emit('\n\n')
    if (outer && !sameProsody(frame.prosody, outer.prosody)) emit(prosodyMark(outer.prosody))
    if (outer && frame.language !== outer.language) emit(languageMark(outer.language))
    if (outer && frame.speaker !== outer.speaker) emit(` <|speaker:${outer.speaker}|> `)
  })
  try {
    parser.write(document).close()
  } catch (err) {
    if (err instanceof SpeechError) throw err
    fail(err instanceof Error ? err.message : String(err))
  }
  if (failure !== undefined) refuse(`is not well-formed (${failure})`, failureAt)
  return { text: out, voices }
}

/** `readSsml`'s text alone, for callers that take no voices from it (tests, the text pipeline's users). */
export const ssmlToMarkup = (document: string): string => readSsml(document).text

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase()
}

function attribute(tag: SaxesTagPlain, name: string): string | undefined {
  const value = tag.attributes[name]
  return typeof value === 'string' ? value.trim() : undefined
}

/** `time="500ms"`, `"2s"`, or a `strength`; SSML's default break is a medium one. */
function breakMs(tag: SaxesTagPlain, refuse: (m: string) => never): number {
  const time = attribute(tag, 'time')
  if (time !== undefined) {
    const m = /^(\d+(?:\.\d+)?)\s*(ms|s)$/i.exec(time)
    if (!m) return refuse(`<break time="${time}"> is not a duration; write it as 500ms or 2s`)
    return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 's' ? 1000 : 1))
  }
  const strength = attribute(tag, 'strength') ?? 'medium'
  const ms = BREAK_STRENGTH_MS[strength]
  return ms ?? refuse(`<break strength="${strength}"> is not one of ${Object.keys(BREAK_STRENGTH_MS).join(', ')}`)
}

/** The element's own prosody change; relative values (`+10%`, `-2st`, `+6dB`) are relative to its parent. */
function prosodyOf(tag: SaxesTagPlain, refuse: (m: string) => never): MarkupProsody {
  const rate = attribute(tag, 'rate')
  const pitch = attribute(tag, 'pitch')
  const volume = attribute(tag, 'volume')
  return {
    rate: rate === undefined ? 1 : RATE_WORDS[rate] ?? percentOrNumber(rate) ?? refuse(`<prosody rate="${rate}"> is not x-slow…x-fast, a percentage (80%) or a number (1.2)`),
    pitchSemitones: pitch === undefined ? 0 : PITCH_WORDS[pitch] ?? semitones(pitch) ?? refuse(`<prosody pitch="${pitch}"> is not x-low…x-high, semitones (+2st) or a percentage (+10%)`),
    volumeDb: volume === undefined ? 0 : VOLUME_WORDS[volume] ?? decibels(volume) ?? refuse(`<prosody volume="${volume}"> is not silent, x-soft…x-loud or decibels (+6dB)`),
  }
}

/** `80%` (of normal), `+10%` / `-10%` (relative), or a plain factor `1.2`. */
function percentOrNumber(value: string): number | undefined {
  const m = /^([+-])?(\d+(?:\.\d+)?)(%)?$/.exec(value)
  if (!m) return undefined
  const n = Number(m[2])
  if (m[3] === undefined) return m[1] ? undefined : n > 0 ? n : undefined
  const factor = m[1] === '+' ? 1 + n / 100 : m[1] === '-' ? 1 - n / 100 : n / 100
  return factor > 0 ? factor : undefined
}

function semitones(value: string): number | undefined {
  const st = /^([+-]?\d+(?:\.\d+)?)st$/.exec(value)
  if (st) return Number(st[1])
  const percent = /^([+-])(\d+(?:\.\d+)?)%$/.exec(value)
  if (!percent) return undefined
  const factor = 1 + (percent[1] === '-' ? -1 : 1) * Number(percent[2]) / 100
  return factor > 0 ? 12 * Math.log2(factor) : undefined
}

function decibels(value: string): number | undefined {
  const m = /^([+-]?\d+(?:\.\d+)?)dB$/i.exec(value)
  return m ? Number(m[1]) : undefined
}

function combine(outer: MarkupProsody, inner: MarkupProsody): MarkupProsody {
  const clamp = (v: number, [lo, hi]: readonly [number, number]) => Math.min(hi, Math.max(lo, v))
  return {
    rate: clamp(outer.rate * inner.rate, PROSODY_LIMITS.rate),
    pitchSemitones: clamp(outer.pitchSemitones + inner.pitchSemitones, PROSODY_LIMITS.pitchSemitones),
    volumeDb: clamp(outer.volumeDb + inner.volumeDb, PROSODY_LIMITS.volumeDb),
  }
}

function sameProsody(a: MarkupProsody, b: MarkupProsody): boolean {
  return a.rate === b.rate && a.pitchSemitones === b.pitchSemitones && a.volumeDb === b.volumeDb
}

/** `say-as`: letters and digits one by one, ordinals with their suffix; other kinds are read by the normalizer. */
function sayAs(text: string, kind: string): string {
  if (kind === 'characters' || kind === 'spell-out' || kind === 'letters' || kind === 'verbatim') {
    return ` ${[...text.replace(/\s+/g, '')].join(' ')} `
  }
  if (kind === 'digits') return ` ${text.replace(/\d/g, (d) => ` ${d} `).replace(/\s+/g, ' ').trim()} `
  if (kind === 'ordinal' && /^\s*\d+\s*$/.test(text)) {
    const n = Number(text.trim())
    const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'
    return `${n}${suffix}`
  }
  return text
}
