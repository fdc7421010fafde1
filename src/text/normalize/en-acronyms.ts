/**
 * Acronyms and initialisms: a lexicon of those said as words (NASA, NATO), letters spelled for the rest
 * (CEO, FBI, "U.N."), and e-mail addresses and URLs read out. Letter names are written as words a
 * synthesizer's lexicon knows, so "A" in "A.I." is "ay", not the article.
 */

/** All-caps words that are said as words, in the spelling that makes an English lexicon say them right. */
const SAID_AS_WORDS: ReadonlyMap<string, string> = new Map([
  ['NASA', 'nasa'], ['NATO', 'nato'], ['UNESCO', 'unesco'], ['UNICEF', 'unicef'], ['OPEC', 'opec'],
  ['FEMA', 'fema'], ['AIDS', 'aids'], ['COVID', 'covid'], ['LASER', 'laser'], ['RADAR', 'radar'],
  ['SCUBA', 'scuba'], ['JSON', 'jason'], ['RAM', 'ram'], ['ROM', 'rom'], ['PIN', 'pin'], ['ZIP', 'zip'],
  ['GIF', 'gif'], ['JPEG', 'jay peg'], ['ASAP', 'ay sap'], ['NASDAQ', 'nasdaq'], ['IKEA', 'ikea'],
  ['SWAT', 'swat'], ['OK', 'okay'], ['WiFi', 'wifi'], ['Wi-Fi', 'wifi'], ['iOS', 'eye oh ess'],
  ['PhD', 'pee aych dee'], ['DIY', 'dee eye why'], ['NYSE', 'en why ess ee'], ['CAPTCHA', 'captcha'],
  ['PDF', 'pee dee eff'], ['USA', 'you ess ay'], ['UK', 'you kay'], ['EU', 'ee you'], ['UN', 'you en'],
])

// "aych", not "aitch": festival's letter-to-sound rules read "aitch" as a bare "ch" (it is not in its lexicon),
// so "HTTP" lost its first letter; "aych" is /eɪtʃ/ by any English rules.
const LETTER_NAMES: Readonly<Record<string, string>> = {
  a: 'ay', b: 'bee', c: 'see', d: 'dee', e: 'ee', f: 'eff', g: 'gee', h: 'aych', i: 'eye', j: 'jay', k: 'kay',
  l: 'el', m: 'em', n: 'en', o: 'oh', p: 'pee', q: 'cue', r: 'ar', s: 'ess', t: 'tee', u: 'you', v: 'vee',
  w: 'double you', x: 'ex', y: 'why', z: 'zee',
}

const ROMAN = /^(?:X{0,3})(?:IX|IV|V?I{0,3})$/
const ROMAN_VALUES: Readonly<Record<string, number>> = { I: 1, V: 5, X: 10 }
const ALL_CAPS = /^\p{Lu}{2,6}s?$/u
const DOTTED = /^(?:\p{L}\.){2,}$|^(?:\p{L}\.)+\p{L}$/u
/** Mixed-case initialisms: capitals with at most one lower-case letter between ("PhD" is in the lexicon). */
const MOSTLY_CAPS = /^(?:\p{Lu}+-)?\p{Lu}{2,5}(?:-\p{Lu}+)?$/u
const EMAIL = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/
const URL = /^(?:(?:https?|ftp):\/\/)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:[/?#][^\s]*)?$/i
const URL_WITH_SCHEME = /^(?:https?|ftp):\/\/|^www\./i

/** "CEO" → "see ee oh". */
export function spellLetters(letters: string): string {
  return [...letters.toLowerCase()].map((c) => LETTER_NAMES[c] ?? c).join(' ')
}

function romanValue(w: string): number {
  let total = 0
  for (let i = 0; i < w.length; i++) {
    const v = ROMAN_VALUES[w[i]!]!
    const next = ROMAN_VALUES[w[i + 1] ?? ''] ?? 0
    total += v < next ? -v : v
  }
  return total
}

/** Context: the words either side, to tell an initialism from a shouted sentence ("STOP THAT NOW"). */
export interface AcronymContext {
  readonly prev?: string
  readonly next?: string
}

const isShout = (w: string | undefined) => w !== undefined && /^\p{Lu}{3,}$/u.test(w) && !SAID_AS_WORDS.has(w)

/** Spoken form of an acronym, initialism, e-mail address or URL; undefined when `w` is none of these. */
export function expandAcronym(w: string, ctx: AcronymContext, numberWords: (n: string) => string): string | undefined {
  const said = SAID_AS_WORDS.get(w)
  if (said) return said
  if (DOTTED.test(w)) return spellLetters(w.replace(/\./g, ''))
  if (/^[IVX]{2,}$/.test(w) && ROMAN.test(w) && /^\p{Lu}\p{Ll}/u.test(ctx.prev ?? '')) {
    return numberWords(String(romanValue(w)))
  }
  if (ALL_CAPS.test(w) || MOSTLY_CAPS.test(w)) {
    if (isShout(ctx.prev) || isShout(ctx.next)) return undefined
    const plural = /^\p{Lu}+s$/u.test(w)
    const spelled = w.replace(/s$/u, (s) => (plural ? '' : s)).split('-')
      .map((part) => SAID_AS_WORDS.get(part) ?? spellLetters(part)).join(' ')
    return plural ? `${spelled}s` : spelled
  }
  if (EMAIL.test(w)) {
    const [user = '', domain = ''] = w.split('@')
    return `${readDotted(user)} at ${readDotted(domain)}`
  }
  if (URL_WITH_SCHEME.test(w) || (URL.test(w) && /\.(?:com|org|net|io|dev|edu|gov|co|uk|de)(?:[/?#]|$)/i.test(w))) {
    const bare = w.replace(/^(?:https?|ftp):\/\//i, '').replace(/\/$/, '')
    return bare.split('/').map(readDotted).join(' slash ')
  }
  return undefined
}

/** "john.doe" → "john dot doe", "www" → "double you double you double you", digits read. */
function readDotted(part: string): string {
  return part.split(/([.\-_?=&#])/).filter((p) => p !== '').map((p) => {
    if (p === '.') return 'dot'
    if (p === '-') return 'dash'
    if (p === '_') return 'underscore'
    if (/^[?=&#]$/.test(p)) return ({ '?': 'question mark', '=': 'equals', '&': 'and', '#': 'hash' } as Record<string, string>)[p]!
    if (p.toLowerCase() === 'www') return 'double you double you double you'
    return p
  }).join(' ')
}
