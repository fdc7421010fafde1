import { cardinal, decimal, digitWords, numberWords, ordinal, pluralNumberWord, year } from './en-numbers.js'
import { CURRENCIES, MONTHS, SCALE_SUFFIXES, UNITS } from './en-tables.js'

/** Written forms of numbers: "1,250", "3.5", ".5". */
export const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+`
export const NUMBER = new RegExp(`^[-−+]?(?:${NUM})$`)
const CURRENCY = new RegExp(`^([-−]?)([$€£¥₹])(${NUM})(k|K|M|mn|B|bn|T|tn)?$`)
const CURRENCY_AFTER = new RegExp(`^([-−]?)(${NUM})([$€£¥₹])$`)
const CURRENCY_RANGE = new RegExp(`^([$€£¥₹])(${NUM})[-–~][$€£¥₹]?(${NUM})$`)
const PERCENT = new RegExp(`^([-−]?)(${NUM})%$`)
const PERCENT_RANGE = new RegExp(`^(${NUM})%?[-–~](${NUM})%$`)
const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/i
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm|a\.m\.|p\.m\.)?$/i
const DATE_US = /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})$/
const DATE_ISO = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/
const PHONE = /^\+?\d+(?:[-.]\d+)+$|^\+\d+$/
const RANGE = new RegExp(`^([-−]?(?:${NUM}))[-–~](${NUM})([\\p{L}°℃℉/]*)$`, 'u')
const NUMBER_SUFFIX = new RegExp(`^([-−]?(?:${NUM}))([\\p{L}°℃℉µ/.]+)$`, 'u')
// Decades end in 0: "1990s", "90s"; "5s" stays five seconds.
const DECADE = /^(\d0|\d{3}0)s$/
const FRACTION = /^(\d+)\/(\d+)$/
const VERSION = /^\d+(?:\.\d+){2,}$/
export const AM_PM = /^(?:am|pm|a\.m\.|p\.m\.)$/i

/** Whether a written number is exactly one, so units stay singular ("1 km", but "1.5 km", "2 km"). */
export function isOne(written: string): boolean {
  return /^[-−+]?1$/.test(written)
}

/** Letter names, as in `spellLetters`: a lone "a" is read as the article ("eleven twenty a m" was heard "… m"). */
export function sayAmPm(written: string): string {
  return written.toLowerCase().startsWith('a') ? 'ay em' : 'pee em'
}

/** A year-like part of a range reads as a year: "1999-2001". */
function rangePart(written: string): string {
  const n = Number(written)
  return /^\d{4}$/.test(written) && n >= 1100 && n < 2100 ? year(written) : numberWords(written)
}

/** "$1,250" → "one thousand two hundred fifty dollars"; "$5.50" → "five dollars and fifty cents". */
export function money(sign: string, amount: string, scaleWord = '', bare = false): string {
  const [one, many, subOne, subMany] = CURRENCIES.get(sign) ?? ['', '', '', '']
  const plain = amount.replace(/,/g, '')
  const [int = '', frac = ''] = plain.split('.')
  if (scaleWord) return `${numberWords(plain)} ${scaleWord} ${many}`
  if (bare) return numberWords(plain)
  if (frac.length > 0 && (frac.length > 2 || subMany === '')) return `${decimal(int, frac)} ${many}`
  const major = Number(int || '0')
  const minor = frac === '' ? 0 : Number(frac.padEnd(2, '0'))
  const parts: string[] = []
  if (major > 0 || minor === 0) parts.push(`${cardinal(int || '0')} ${major === 1 ? one : many}`)
  if (minor > 0) parts.push(`${cardinal(String(minor))} ${minor === 1 ? subOne : subMany}`)
  return parts.join(' and ')
}

function time(h: string, m: string, s: string | undefined, suffix: string | undefined,
  amPmNext: boolean): string {
  const hour = Number(h)
  const minute = Number(m)
  let words: string
  if (minute === 0) {
    if (suffix || amPmNext) words = cardinal(h)
    else words = hour >= 1 && hour <= 12 ? `${cardinal(h)} o'clock` : `${cardinal(h)} hundred`
  } else {
    words = minute < 10 ? `${cardinal(h)} oh ${cardinal(m)}` : `${cardinal(h)} ${cardinal(m)}`
  }
  if (s !== undefined && Number(s) > 0) words += ` and ${cardinal(s)} second${Number(s) === 1 ? '' : 's'}`
  return suffix ? `${words} ${sayAmPm(suffix)}` : words
}

function date(y: string, m: string, d: string): string | undefined {
  const month = MONTHS[Number(m) - 1]
  const day = Number(d)
  if (!month || day < 1 || day > 31) return undefined
  const yearWords = y.length === 2 ? (Number(y) < 10 ? `oh ${cardinal(y)}` : cardinal(y)) : year(y)
  return `${month} ${ordinal(d)}, ${yearWords}`
}

function fraction(n: string, d: string): string {
  const den = Number(d)
  const one = Number(n) === 1
  if (den === 2) return one ? 'one half' : `${cardinal(n)} halves`
  if (den === 4) return one ? 'one quarter' : `${cardinal(n)} quarters`
  if (den >= 3 && den <= 10) return `${cardinal(n)} ${ordinal(d)}${one ? '' : 's'}`
  return `${cardinal(n)} over ${cardinal(d)}`
}

function suffixed(num: string, suffix: string): string | undefined {
  const unit = UNITS.get(suffix)
  if (unit) return `${numberWords(num)} ${isOne(num) ? unit[0] : unit[1]}`
  const scale = SCALE_SUFFIXES.get(suffix)
  if (scale) return `${numberWords(num)} ${scale}`
  if (AM_PM.test(suffix)) return `${numberWords(num)} ${sayAmPm(suffix)}`
  return undefined
}

/** Context a pattern may look at: the neighbouring words of the same sentence. */
export interface PatternContext {
  readonly next?: string
}

/** Expands a word that is (mostly) a number in a recognisable shape; undefined when none fits. */
export function expandNumeric(w: string, ctx: PatternContext): string | undefined {
  let m: RegExpExecArray | null
  if ((m = CURRENCY.exec(w))) {
    const [, sign, cur, amount, scale] = m as unknown as [string, string, string, string, string | undefined]
    const scaleWord = scale ? SCALE_SUFFIXES.get(scale) : undefined
    const bare = !scaleWord && /^(?:thousand|million|billion|trillion)$/i.test(ctx.next ?? '')
    return (sign ? 'minus ' : '') + money(cur, amount, scaleWord, bare)
  }
  if ((m = CURRENCY_AFTER.exec(w))) return (m[1] ? 'minus ' : '') + money(m[3] as string, m[2] as string)
  if ((m = CURRENCY_RANGE.exec(w))) {
    return `${numberWords(m[2] as string)} to ${money(m[1] as string, m[3] as string)}`
  }
  if ((m = PERCENT.exec(w))) return `${numberWords((m[1] ?? '') + (m[2] as string))} percent`
  if ((m = PERCENT_RANGE.exec(w))) {
    return `${numberWords(m[1] as string)} to ${numberWords(m[2] as string)} percent`
  }
  if ((m = ORDINAL.exec(w))) return ordinal(m[1] as string)
  if ((m = TIME.exec(w)) && Number(m[1]) <= 24 && Number(m[2]) < 60) {
    return time(m[1] as string, m[2] as string, m[3], m[4], AM_PM.test(ctx.next ?? ''))
  }
  if ((m = DATE_US.exec(w))) return date(m[3] as string, m[1] as string, m[2] as string)
  if ((m = DATE_ISO.exec(w))) return date(m[1] as string, m[2] as string, m[3] as string)
  if (PHONE.test(w) && isPhone(w)) {
    const groups = w.replace(/^\+/, '').split(/[-.]/).map(digitWords)
    return (w.startsWith('+') ? 'plus ' : '') + groups.join(', ')
  }
  if (VERSION.test(w)) return w.split('.').map((p) => numberWords(p)).join(' point ')
  if ((m = RANGE.exec(w))) {
    const [, a, b, suffix = ''] = m as unknown as [string, string, string, string | undefined]
    if (suffix === '') return `${rangePart(a)} to ${rangePart(b)}`
    const tail = suffixed(b, suffix)
    if (tail) return `${numberWords(a)} to ${tail}`
  }
  if ((m = DECADE.exec(w))) {
    const d = m[1] as string
    return pluralNumberWord(d.length === 4 ? year(d) : cardinal(d))
  }
  if ((m = NUMBER_SUFFIX.exec(w))) {
    const said = suffixed(m[1] as string, m[2] as string)
    if (said) return said
  }
  if ((m = FRACTION.exec(w))) return fraction(m[1] as string, m[2] as string)
  return undefined
}

/** 555-1234, 555-123-4567, +1-555-123-4567, +44; not a range ("1-5") or a version ("1.2.3"). */
function isPhone(w: string): boolean {
  if (w.startsWith('+')) return true
  const groups = w.split(/[-.]/)
  if (groups.length >= 3) return groups.every((g) => g.length >= 2) && !/^\d+\.\d+\.\d+$/.test(w)
  return groups.length === 2 && groups[0]?.length === 3 && groups[1]?.length === 4 && w.includes('-')
}
