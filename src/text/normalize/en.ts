import { expandAcronym, spellLetters } from './en-acronyms.js'
import { cardinal, digitWords, numberWords, ordinal, year } from './en-numbers.js'
import { AM_PM, expandNumeric, isOne, NUMBER, sayAmPm } from './en-patterns.js'
import {
  ABBREVIATIONS, ATTACHED_ONLY_UNITS, BARE_ABBREVIATIONS, CURRENCIES, MONTHS, SCALE_WORDS, SYMBOL_WORDS, UNITS,
  YEAR_CUES, YEAR_FOLLOWERS,
} from './en-tables.js'

/** Neighbouring words of the same sentence (undefined at its edges). */
export interface WordContext {
  readonly prev?: string
  readonly prev2?: string
  readonly next?: string
}

const CALLING = /^(?:call|dial|dialled|dialed|phone|ring|text)$/i
const CURRENCY_AMOUNT = /^[-−]?([$€£¥₹])[\d,.]+$/
const MONTH_LIST: readonly string[] = MONTHS
/** "March" and "Mar." both name a month, so the day after them is an ordinal. */
const MONTH_NAMES = new Set([...MONTHS, ...[...ABBREVIATIONS].filter(([, a]) => MONTH_LIST.includes(a.say))
  .map(([written]) => written)])
const isCapitalised = (w: string | undefined): boolean => w !== undefined && /^\p{Lu}/u.test(w)
const isNumeric = (w: string | undefined): boolean => w !== undefined && /^[-−+$€£¥₹]?\d/.test(w)

/**
 * "St." and "Dr." after a name or a number are streets ("Main St.", "5th St.", "Elm Dr."); otherwise
 * "St." before a name is Saint and "Dr." is Doctor. A capitalised first word of a sentence is not a name.
 */
function streetOrTitle(w: string, ctx: WordContext): string {
  const afterName = (isCapitalised(ctx.prev) && ctx.prev2 !== undefined) || isNumeric(ctx.prev)
  if (w === 'Dr.') return afterName ? 'Drive' : 'Doctor'
  return afterName || !isCapitalised(ctx.next) ? 'Street' : 'Saint'
}

function unitAfterNumber(w: string, prev: string | undefined): string | undefined {
  const unit = UNITS.get(w)
  if (!unit || ATTACHED_ONLY_UNITS.has(w) || prev === undefined) return undefined
  const amount = /(?:^|[-–~])([-−]?[\d,.]+)$/.exec(prev)?.[1]
  if (amount === undefined || !/\d/.test(amount)) return undefined
  return isOne(amount) ? unit[0] : unit[1]
}

function isYear(w: string, ctx: WordContext): boolean {
  const n = Number(w)
  const cued = YEAR_CUES.has((ctx.prev ?? '').toLowerCase())
  if (!/^\d{4}$/.test(w) || n < (cued ? 1000 : 1100) || n >= 2100) return false
  const next = ctx.next
  if (next === undefined || !/^\p{Ll}/u.test(next)) return !(next !== undefined && UNITS.has(next))
  if (UNITS.has(next) || SCALE_WORDS.has(next) || next === 'percent') return false
  return cued || YEAR_FOLLOWERS.has(next)
}

/** Mixed letters and digits ("COVID-19", "MP3", "3D"): numbers read, letters kept. */
function mixed(w: string): string {
  return w.replace(/(\d+(?:\.\d+)*)|[-_/.:]+/g, (_m, num: string | undefined) => {
    if (num === undefined) return ' '
    const parts = num.split('.')
    return ` ${parts.length > 2 ? parts.map((p) => numberWords(p)).join(' point ') : numberWords(num)} `
  }).replace(/\s+/g, ' ').trim()
}

/** English spoken form of one written word; the word itself when nothing applies. */
export function normalizeEnglish(w: string, ctx: WordContext): string {
  if (w === 'St.' || w === 'Dr.') return streetOrTitle(w, ctx)
  const abbr = ABBREVIATIONS.get(w)?.say ?? BARE_ABBREVIATIONS.get(w)
  if (abbr) return abbr
  if (AM_PM.test(w)) return /\d$/.test(ctx.prev ?? '') ? sayAmPm(w) : w
  const unit = unitAfterNumber(w, ctx.prev)
  if (unit) return unit
  if (SCALE_WORDS.has(w) && ctx.prev !== undefined) {
    const sign = CURRENCY_AMOUNT.exec(ctx.prev)?.[1]
    if (sign) return `${w} ${CURRENCIES.get(sign)?.[1] ?? ''}`.trim()
  }
  // "3 x 4": times, between numbers only.
  if ((w === 'x' || w === 'X') && isNumeric(ctx.prev) && isNumeric(ctx.next)) return 'times'
  const symbol = SYMBOL_WORDS.get(w)
  if (symbol) return symbol
  const acronym = expandAcronym(w, ctx, numberWords)
  if (acronym) return acronym
  if (!/\d/.test(w)) return w
  // "v20", "v2.0": a version.
  if (/^v\d+(?:\.\d+)*$/i.test(w)) return `version ${w.slice(1).split('.').map((p) => numberWords(p)).join(' point ')}`
  // "4K", "Q3", "A4": a capital letter and a number, each read.
  const lettered = /^(\d+)(\p{Lu})$|^(\p{Lu})(\d+)$/u.exec(w)
  if (lettered && !UNITS.has(lettered[2] ?? '')) {
    return lettered[1] ? `${numberWords(lettered[1])} ${spellLetters(lettered[2]!)}` : `${spellLetters(lettered[3]!)} ${numberWords(lettered[4]!)}`
  }
  if (/^#\d+$/.test(w)) return `number ${cardinal(w.slice(1))}`
  // A day after a month name: "March 4, 2025" → "March fourth, …".
  const day = /^\d{1,2}$/.test(w) ? Number(w) : 0
  if (day >= 1 && day <= 31 && MONTH_NAMES.has(ctx.prev ?? '')) return ordinal(w)
  // Service numbers are dialled, digit by digit: 911 always, the other N11 codes, 112 and 999 after a verb of calling.
  if (w === '911' || (/^(?:[2-8]11|112|999)$/.test(w) && CALLING.test(ctx.prev ?? ''))) return digitWords(w)
  // The area code of "555 123-4567" is digits too.
  if (/^\d{3}$/.test(w) && /^\d{3}-\d{4}$/.test(ctx.next ?? '')) return digitWords(w)
  if (isYear(w, ctx)) return year(w)
  if (NUMBER.test(w)) return numberWords(w.replace(/^\+/, ''))
  if (/^\d[\d,]*\+$/.test(w)) return `${numberWords(w.slice(0, -1))} plus`
  return expandNumeric(w, ctx) ?? mixed(w)
}
