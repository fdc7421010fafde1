import { planChunks } from './chunk.js'
import { decideLanguage, normalizeLanguageCode, scriptLanguage } from './language.js'
import type { LanguageDecision } from './language-decision.js'
import { buildLayout } from './layout.js'
import { normalizeWord } from './normalize/index.js'
import { NO_PRONUNCIATIONS, type Pronunciations } from './pronunciations.js'
import { measure, renderChunk } from './render.js'
import { BREAK, NATURAL_PAUSE_MS, segment, type Unit } from './segment.js'
import { expressionKey, parseTags } from './tags.js'
import type { TextChunk, TextPipelineOptions } from './types.js'
import { splitWords } from './words.js'

/**
 * English words that open a prosodic phrase (prepositions, conjunctions, relatives, the infinitive `to`):
 * a speaker may pause before them, so `low` latency may end its first chunk there. `of` binds too tightly.
 */
const PHRASE_OPENERS: ReadonlySet<string> = new Set([
  'about', 'above', 'across', 'after', 'against', 'along', 'among', 'around', 'at', 'because', 'before', 'behind',
  'below', 'beneath', 'beside', 'between', 'beyond', 'but', 'by', 'during', 'for', 'from', 'if', 'in', 'into',
  'near', 'onto', 'or', 'over', 'since', 'so', 'than', 'that', 'though', 'through', 'to', 'toward', 'towards',
  'under', 'unless', 'until', 'upon', 'when', 'where', 'whether', 'which', 'while', 'who', 'with', 'within',
  'without', 'and', 'although', 'on', 'as',
])

/** Text sampled per sentence for its language; enough for the script check. */
const SENTENCE_SAMPLE = 200

function clamp(value: number, lo: number, hi: number): number {
  return Number.isFinite(value) ? Math.min(hi, Math.max(lo, Math.round(value))) : lo
}

function sample(units: readonly Unit[], from: number, to: number, max: number): string {
  let out = ''
  for (let i = from; i < to && out.length < max; i++) out += (units[i] as Unit).word.text + ' '
  return out
}

/**
 * Language per word. A forced language applies everywhere. Otherwise the whole text is decided once (staying
 * in the voice's or the server's default language unless it confidently is another), and a sentence in another
 * script overrides it ("今天很好。" inside English text is Chinese).
 */
function languages(units: readonly Unit[], options: TextPipelineOptions): LanguageDecision[] {
  const { language: forced, languageHint: hint, voiceLanguages } = options
  if (forced !== undefined && forced.trim() !== '') {
    return units.map(() => ({ language: normalizeLanguageCode(forced), confidence: 1, reason: 'voice' }))
  }
  const fallback = normalizeLanguageCode(voiceLanguages?.[0] ?? options.defaultLanguage ?? 'en')
  const main: LanguageDecision = hint
    ? { language: normalizeLanguageCode(hint), confidence: 1, reason: 'session' }
    : decideLanguage(sample(units, 0, units.length, 400), fallback)
  const mainIsCjk = main.language === 'zh' || main.language === 'ja' || main.language === 'ko'
  const out: LanguageDecision[] = []
  let start = 0
  for (let i = 0; i < units.length; i++) {
    const unit = units[i] as Unit
    if (i + 1 < units.length && (units[i + 1] as Unit).sentence === unit.sentence) continue
    const text = sample(units, start, i + 1, SENTENCE_SAMPLE)
    const script = scriptLanguage(text)
    const lang: LanguageDecision = script
      ? { language: script, confidence: 1, reason: 'script' }
      : mainIsCjk ? decideLanguage(text, fallback) : main
    for (let k = start; k <= i; k++) {
      const marked = (units[k] as Unit).language
      out.push(marked ? { language: normalizeLanguageCode(marked), confidence: 1, reason: 'markup' } : lang)
    }
    start = i + 1
  }
  return out
}

/** What the engine says for each word: the operator's lexicon first, then (when asked) the normalizer. */
function spokenForms(units: readonly Unit[], langs: readonly string[], normalize: boolean, lexicon: Pronunciations): string[] {
  const near = (i: number, k: number): string | undefined => {
    const other = units[k]
    return other && other.sentence === (units[i] as Unit).sentence ? other.word.text : undefined
  }
  return units.map((u, i) => lexicon.say(u.word.text) ?? (normalize
    ? normalizeWord(u.word.text, langs[i] ?? 'en', { prev: near(i, i - 1), prev2: near(i, i - 2), next: near(i, i + 1) })
    : u.word.text))
}

/**
 * Plans speech for `text`: removes and applies expression tags, normalizes (when asked), and splits into
 * chunks that are homogeneous in expression, speaker and language. Pure and synchronous.
 */
export function planText(text: string, options: TextPipelineOptions): TextChunk[] {
  const tags = parseTags(text, options.dialect)
  const units = segment(text, splitWords(text, tags), tags)
  if (units.length === 0) return []
  const decisions = languages(units, options)
  const langs = decisions.map((d) => d.language)
  const spoken = spokenForms(units, langs, options.normalize, options.pronunciations ?? NO_PRONUNCIATIONS)
  const layout = buildLayout(text, units, tags, spoken)
  const keys = units.map((u) => expressionKey(u.expression))
  const last = units.length - 1
  const hardAfter = (i: number): boolean => {
    const a = units[i] as Unit
    const b = units[i + 1]
    return !b || a.tagPauseMs > 0 || a.breakAfter === BREAK.paragraph || a.speaker !== b.speaker
      || keys[i] !== keys[i + 1] || langs[i] !== langs[i + 1]
  }
  const ranges = planChunks({
    count: units.length,
    breakAfter: (i) => (units[i] as Unit).breakAfter,
    hardAfter,
    measure: measure(layout),
    chunkLength: clamp(options.chunkLength, 100, 300),
    minChunkLength: clamp(options.minChunkLength, 0, 100),
    latency: options.latency,
    opensPhrase: (i) => langs[i]?.startsWith('en') === true && PHRASE_OPENERS.has((units[i] as Unit).word.text.toLowerCase()),
  })
  return ranges.map(([a, b]) => {
    const first = units[a] as Unit
    const end = units[b] as Unit
    const natural = b === last ? 0 : NATURAL_PAUSE_MS[end.breakAfter]
    return {
      ...renderChunk(layout, a, b),
      expression: first.expression,
      speaker: first.speaker,
      pauseAfterMs: natural + end.tagPauseMs,
      language: langs[a] ?? 'en',
      languageDecision: decisions[a] ?? { language: 'en', confidence: 1, reason: 'default' },
    }
  })
}
