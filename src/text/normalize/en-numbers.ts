/** English number words: cardinals, ordinals, years, digit strings, decimals. American style, no "and". */

const ONES = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
] as const
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'] as const
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion'] as const
/** Integers with more digits than this are read digit by digit. */
export const MAX_CARDINAL_DIGITS = 15

function below100(n: number): string {
  if (n < 20) return ONES[n] as string
  const tens = TENS[Math.floor(n / 10)] as string
  return n % 10 === 0 ? tens : `${tens}-${ONES[n % 10]}`
}

function below1000(n: number): string {
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  if (hundreds === 0) return below100(rest)
  const head = `${ONES[hundreds]} hundred`
  return rest === 0 ? head : `${head} ${below100(rest)}`
}

/** Reads each digit: "007" → "zero zero seven". */
export function digitWords(digits: string): string {
  return [...digits].map((d) => ONES[Number(d)] ?? d).join(' ')
}

/** Cardinal of a non-negative integer given as digits; 1,250 → "one thousand two hundred fifty". */
export function cardinal(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '')
  if (clean.length > MAX_CARDINAL_DIGITS) return digitWords(clean)
  const groups: number[] = []
  for (let end = clean.length; end > 0; end -= 3) groups.unshift(Number(clean.slice(Math.max(0, end - 3), end)))
  if (groups.every((g) => g === 0)) return 'zero'
  const parts: string[] = []
  groups.forEach((g, i) => {
    if (g === 0) return
    const scale = SCALES[groups.length - 1 - i] as string
    parts.push(scale ? `${below1000(g)} ${scale}` : below1000(g))
  })
  return parts.join(' ')
}

const IRREGULAR_ORDINALS: Readonly<Record<string, string>> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
}

/** Turns the last word of a cardinal into its ordinal: "twenty-two" → "twenty-second". */
export function toOrdinal(words: string): string {
  const match = /([a-z]+)$/.exec(words)
  if (!match) return words
  const last = match[1] as string
  const head = words.slice(0, words.length - last.length)
  const irregular = IRREGULAR_ORDINALS[last]
  if (irregular) return head + irregular
  if (last.endsWith('y')) return `${head}${last.slice(0, -1)}ieth`
  return `${head}${last}th`
}

export const ordinal = (digits: string): string => toOrdinal(cardinal(digits))

/** Plural of a number word, for decades: "nineteen nineties", "eighties". */
export function pluralNumberWord(words: string): string {
  if (words.endsWith('y')) return `${words.slice(0, -1)}ies`
  if (words.endsWith('x')) return `${words}es`
  return `${words}s`
}

/**
 * Year reading of a four-digit number: 1999 "nineteen ninety-nine", 1905 "nineteen oh five",
 * 2005 "two thousand five".
 */
export function year(digits: string): string {
  const n = Number(digits)
  if (digits.length !== 4 || n < 1000) return cardinal(digits)
  const hi = Math.floor(n / 100)
  const lo = n % 100
  if (hi % 10 === 0 && lo < 10) return cardinal(digits)
  if (lo === 0) return `${below100(hi)} hundred`
  if (lo < 10) return `${below100(hi)} oh ${ONES[lo]}`
  return `${below100(hi)} ${below100(lo)}`
}

/** "3.14" → "three point one four"; "1,234.5" → "one thousand two hundred thirty-four point five". */
export function decimal(intDigits: string, fraction: string): string {
  const head = intDigits === '' ? '' : `${cardinal(intDigits.replace(/,/g, ''))} `
  return fraction === '' ? head.trim() : `${head}point ${digitWords(fraction)}`
}

/** A plain number as written: "-1,250.5", "42", ".5". Signs read "minus". */
export function numberWords(written: string): string {
  const negative = /^[-−]/.test(written)
  const body = written.replace(/^[-−+]/, '').replace(/,/g, '')
  const [int = '', frac = ''] = body.split('.')
  const words = frac === '' && !body.includes('.') ? intWords(int) : decimal(int, frac)
  return negative ? `minus ${words}` : words
}

/** Integers with a leading zero ("007") are codes, read digit by digit. */
function intWords(int: string): string {
  return int.length > 1 && int.startsWith('0') ? digitWords(int) : cardinal(int)
}
