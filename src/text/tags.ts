import type { Expression, TagDialect } from './types.js'
import { readMark, type MarkupProsody } from './markup-marks.js'
import { MAX_PAUSE_MS, PROSODY_LIMITS, TAG_LOOKUP, TAG_MODIFIERS, type TagEntry } from './tag-table.js'

/**
 * A markup span in the user's text that is never spoken. `expression` and `pause` come from the tag table;
 * `unknown` is a cue in the dialect's syntax that the table does not know (removed, no effect);
 * `speaker` is `<|speaker:N|>`; `prosody` and `language` are the marks SSML becomes (markup-marks.ts), in
 * effect until the next of their kind; `control` is any other `<|…|>` token (removed, no effect).
 */
export interface TagSpan {
  readonly start: number
  readonly end: number
  readonly kind: 'expression' | 'pause' | 'unknown' | 'speaker' | 'prosody' | 'language' | 'control'
  /** Canonical tag name, with its intensity word if any (`very excited`); the raw text for unknown tags. */
  readonly name: string
  readonly entry?: TagEntry
  /** Intensity factor from a modifier word (`slightly` 0.5, `very` 1.5); 1 otherwise. */
  readonly scale: number
  readonly pauseMs: number
  readonly speaker: number
  /** For `prosody`: the prosody from here on (neutral ends a span). */
  readonly prosody?: MarkupProsody
  /** For `language`: the language from here on; undefined returns to detection. */
  readonly language?: string
}

export const NEUTRAL_EXPRESSION: Expression = Object.freeze({ pitchSemitones: 0, rate: 1, volumeDb: 0, tags: [] })

// One scan for all three syntaxes, so spans never overlap and order is the text's order.
const MARKUP = /<\|([^|<>\n]{1,60})\|>|\[([^[\]\n]{1,200})\]|\(([^()\n]{1,60})\)/g
const SPEAKER = /^speaker\s*:\s*(\d{1,3})$/i
const TIMED_PAUSE = /^(?:pause|break|silence)\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?)$/
// s1 tone markers that are not in the table still have an unmistakable shape: `(serious tone)`.
const S1_TONE_SHAPE = /^[a-z]+(?: [a-z]+){0,2} tone$/

export interface TagLookup {
  readonly entry?: TagEntry
  readonly name: string
  readonly scale: number
  readonly pauseMs: number
}

function cleanName(raw: string): string {
  return raw.trim().toLowerCase().replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').replace(/[.!]+$/, '')
}

/** Finds a tag by name, alias, `modifier name`, or timed pause (`pause 2s`); undefined when unknown. */
export function lookupTag(raw: string): TagLookup | undefined {
  const name = cleanName(raw)
  const timed = TIMED_PAUSE.exec(name)
  if (timed) {
    const value = Number(timed[1]) * (timed[2] === 'ms' ? 1 : 1000)
    return { name, scale: 1, pauseMs: Math.min(MAX_PAUSE_MS, Math.round(value)), entry: TAG_LOOKUP.get('pause') }
  }
  const direct = TAG_LOOKUP.get(name)
  if (direct) return { entry: direct, name: direct.name, scale: 1, pauseMs: direct.pauseMs }
  for (const [modifier, scale] of TAG_MODIFIERS) {
    if (!name.startsWith(modifier + ' ')) continue
    const found = TAG_LOOKUP.get(name.slice(modifier.length + 1))
    if (!found) return undefined
    const pauseMs = Math.min(MAX_PAUSE_MS, Math.round(found.pauseMs * scale))
    return { entry: found, name: `${modifier} ${found.name}`, scale, pauseMs }
  }
  return undefined
}

function span(start: number, end: number, found: TagLookup | undefined, raw: string): TagSpan {
  if (!found) return { start, end, kind: 'unknown', name: raw.trim(), scale: 1, pauseMs: 0, speaker: 0 }
  const kind = found.entry?.kind === 'pause' ? 'pause' : 'expression'
  return { start, end, kind, name: found.name, entry: found.entry, scale: found.scale, pauseMs: found.pauseMs,
    speaker: 0 }
}

/**
 * Finds every tag in `text`. The active dialect's brackets are always markup (s2-pro `[…]`: every cue,
 * known or not); s1 `(…)` is markup only when it holds a known tag or a `… tone` phrase, because
 * parentheses are also ordinary punctuation ("(see page 4)" is spoken). A known tag in the other
 * dialect's brackets is accepted too, since clients often send the wrong `model` header.
 */
export function parseTags(text: string, dialect: TagDialect): TagSpan[] {
  const spans: TagSpan[] = []
  MARKUP.lastIndex = 0
  for (let m = MARKUP.exec(text); m; m = MARKUP.exec(text)) {
    const start = m.index
    const end = start + m[0].length
    const [, control, square, round] = m
    if (control !== undefined) {
      const who = SPEAKER.exec(control.trim())
      const mark = who ? undefined : readMark(control.trim())
      const base = { start, end, name: m[0], scale: 1, pauseMs: 0, speaker: 0 }
      if (who) spans.push({ ...base, kind: 'speaker', speaker: Number(who[1]) })
      else if (mark && 'prosody' in mark) spans.push({ ...base, kind: 'prosody', prosody: mark.prosody })
      else if (mark) spans.push({ ...base, kind: 'language', ...(mark.language && { language: mark.language }) })
      else spans.push({ ...base, kind: 'control' })
      continue
    }
    const raw = (square ?? round) as string
    const found = lookupTag(raw)
    const native = dialect === 's2-pro' ? square !== undefined : round !== undefined
    const isTag = found !== undefined || (native && (dialect === 's2-pro' || S1_TONE_SHAPE.test(cleanName(raw))))
    if (isTag) spans.push(span(start, end, found, raw))
    // Not markup: rescan inside it, so "(see [pause] here)" still finds the inner cue.
    else MARKUP.lastIndex = start + 1
  }
  return spans
}

function clamp(value: number, [lo, hi]: readonly [number, number]): number {
  return Math.min(hi, Math.max(lo, value))
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits))

/**
 * Prosody of a group of tags standing together (`(sad)(whispering)`): pitch and volume add, rates
 * multiply, each scaled by its intensity word, then clamped to PROSODY_LIMITS.
 */
export function combineTags(group: readonly TagSpan[]): Expression {
  let pitch = 0
  let rate = 1
  let volume = 0
  const tags: string[] = []
  for (const tag of group) {
    const e = tag.entry
    if (tag.kind !== 'expression' || !e) continue
    pitch += e.pitchSemitones * tag.scale
    rate *= 1 + (e.rate - 1) * tag.scale
    volume += e.volumeDb * tag.scale
    if (!tags.includes(tag.name)) tags.push(tag.name)
  }
  if (tags.length === 0) return NEUTRAL_EXPRESSION
  return {
    pitchSemitones: round(clamp(pitch, PROSODY_LIMITS.pitchSemitones), 2),
    rate: round(clamp(rate, PROSODY_LIMITS.rate), 3),
    volumeDb: round(clamp(volume, PROSODY_LIMITS.volumeDb), 2),
    tags,
  }
}

/**
 * The expression of tags with an SSML prosody span around it (markup-marks.ts): pitch and volume add, rates
 * multiply, clamped like tags; `prosody` joins the tag names so the span's edges split chunks.
 */
export function withMarkupProsody(e: Expression, p: MarkupProsody): Expression {
  if (p.rate === 1 && p.pitchSemitones === 0 && p.volumeDb === 0) return e
  return {
    pitchSemitones: round(clamp(e.pitchSemitones + p.pitchSemitones, PROSODY_LIMITS.pitchSemitones), 2),
    rate: round(clamp(e.rate * p.rate, PROSODY_LIMITS.rate), 3),
    volumeDb: round(clamp(e.volumeDb + p.volumeDb, PROSODY_LIMITS.volumeDb), 2),
    tags: [...e.tags, 'prosody'],
  }
}

/** Stable identity of an expression, to tell where it changes. */
export function expressionKey(e: Expression): string {
  return e.tags.length === 0 ? '' : `${e.tags.join('+')}|${e.pitchSemitones}|${e.rate}|${e.volumeDb}`
}
