/**
 * Word timings for flite. flite prints the phones it spoke with their end times (`-psdur`), and separately
 * the words (`-pw`) and each word's phones in isolation (`-ps` on the words separated by commas, so pauses
 * mark the word boundaries). Aligning the isolated phones to the spoken ones (edit distance) tells which
 * spoken phones belong to which word; the word's times are then flite's own phone times.
 */

export interface Phone {
  readonly name: string
  readonly start: number
  readonly end: number
}

/** `pau:0.164 hh:0.255 …` → phones with start and end times. */
export function parsePhoneTrace(trace: string): Phone[] {
  const phones: Phone[] = []
  let start = 0
  for (const item of trace.trim().split(/\s+/)) {
    const m = /^([^:]+):([0-9.]+)$/.exec(item)
    if (!m) continue
    const end = Number(m[2])
    phones.push({ name: m[1]!, start, end })
    start = end
  }
  return phones
}

/** `-ps` output of words separated by commas → one phone list per word. */
export function parsePhoneGroups(output: string): string[][] {
  const groups: string[][] = [[]]
  for (const p of output.trim().split(/\s+/)) {
    if (p === 'pau') {
      if (groups[groups.length - 1]!.length) groups.push([])
    } else if (p) groups[groups.length - 1]!.push(p)
  }
  return groups.filter((g) => g.length > 0)
}

const VOWELS = new Set(['aa', 'ae', 'ah', 'ao', 'aw', 'ax', 'ay', 'eh', 'er', 'ey', 'ih', 'iy', 'ow', 'oy', 'uh', 'uw'])

function substitution(a: string, b: string): number {
  if (a === b) return 0
  return VOWELS.has(a) && VOWELS.has(b) ? 0.5 : 1
}

/**
 * Start and end of each word. `groups` are the words' phones in isolation; when flite split the words
 * differently (`groups.length !== names.length`), each word is assumed to have about as many phones as letters.
 */
export function wordSpans(
  phones: readonly Phone[],
  names: readonly string[],
  groups: readonly (readonly string[])[],
): { start: number; end: number }[] {
  const spoken = phones.filter((p) => p.name !== 'pau')
  const expected: { name: string; word: number }[] = []
  const source = groups.length === names.length ? groups : names.map((n) => Array.from(n.slice(0, 12), () => '?'))
  source.forEach((g, word) => g.forEach((name) => expected.push({ name, word })))
  const A = spoken.length
  const E = expected.length
  const cost = new Float64Array((A + 1) * (E + 1))
  const W = E + 1
  for (let i = 0; i <= A; i++) cost[i * W] = i
  for (let j = 0; j <= E; j++) cost[j] = j
  for (let i = 1; i <= A; i++) {
    for (let j = 1; j <= E; j++) {
      cost[i * W + j] = Math.min(
        cost[(i - 1) * W + j - 1]! + substitution(spoken[i - 1]!.name, expected[j - 1]!.name),
        cost[(i - 1) * W + j]! + 1,
        cost[i * W + j - 1]! + 1,
      )
    }
  }
  // Walk back: each spoken phone takes the word of the expected phone it was matched with.
  const owner = new Array<number>(A).fill(-1)
  let i = A
  let j = E
  while (i > 0 && j > 0) {
    const c = cost[i * W + j]!
    if (c === cost[(i - 1) * W + j - 1]! + substitution(spoken[i - 1]!.name, expected[j - 1]!.name)) {
      owner[--i] = expected[--j]!.word
    } else if (c === cost[(i - 1) * W + j]! + 1) i--
    else j--
  }
  // Phones flite added (not in the isolated forms) join the word before them, or the first word.
  let prev = owner.find((w) => w >= 0) ?? 0
  for (let k = 0; k < A; k++) {
    if (owner[k]! < 0) owner[k] = prev
    prev = owner[k]!
  }
  const spans: { start: number; end: number }[] = []
  let floor = 0
  for (let w = 0; w < names.length; w++) {
    let start = Infinity
    let end = -Infinity
    for (let k = 0; k < A; k++) {
      if (owner[k] !== w) continue
      start = Math.min(start, spoken[k]!.start)
      end = Math.max(end, spoken[k]!.end)
    }
    if (start === Infinity) spans.push({ start: floor, end: floor })
    else spans.push({ start: Math.max(floor, start), end: Math.max(floor, end) })
    floor = spans[spans.length - 1]!.end
  }
  return spans
}
