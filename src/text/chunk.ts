import type { Latency } from './types.js'
import type { Measure } from './render.js'
import { BREAK, type BreakLevel } from './segment.js'

/** Inclusive range of unit (word) indices. */
export type Range = readonly [first: number, last: number]

export interface ChunkPlanInput {
  /** Number of words. */
  readonly count: number
  /** Punctuation break after word i. */
  readonly breakAfter: (i: number) => BreakLevel
  /** A chunk must end after word i (expression, speaker, language change, pause tag, paragraph). */
  readonly hardAfter: (i: number) => boolean
  readonly measure: Measure
  readonly chunkLength: number
  readonly minChunkLength: number
  readonly latency: Latency
  /** Whether word i opens a phrase (a preposition or conjunction): where `low` may cut a long first clause. */
  readonly opensPhrase?: (i: number) => boolean
}

/** `low`: the first chunk ends at the first clause or sentence end that has at least this many words. */
export const LOW_FIRST_MIN_WORDS = 3
/**
 * `low`: a first clause longer than this many words is cut before its first phrase-opening word ("The quick
 * brown fox jumps | over the lazy dog,"), so the first audio waits for a couple of seconds of speech at most.
 */
export const LOW_FIRST_MAX_WORDS = 6
/** `balanced`: the first sentence is split at clauses when longer than this (characters). */
export const BALANCED_FIRST_LENGTH = 120

/** Splits a..b before every word whose predecessor has a break of at least `level`. */
function split(a: number, b: number, level: BreakLevel, breakAfter: (i: number) => BreakLevel): Range[] {
  const out: Range[] = []
  let start = a
  for (let i = a; i <= b; i++) {
    if (i === b || breakAfter(i) >= level) {
      out.push([start, i])
      start = i + 1
    }
  }
  return out
}

/**
 * Greedy packing: joins consecutive atoms while the result fits `limit`; an atom too long on its own is
 * broken by `breakUp` (clauses, then words; a single word longer than the limit stays whole).
 */
function pack(atoms: readonly Range[], limit: number, m: Measure, breakUp: (r: Range) => Range[]): Range[] {
  const out: Range[] = []
  let cur: Range | undefined
  for (const atom of atoms) {
    if (cur && m(cur[0], atom[1]) <= limit) {
      cur = [cur[0], atom[1]]
      continue
    }
    if (cur) out.push(cur)
    cur = atom
    if (m(atom[0], atom[1]) > limit) {
      const parts = breakUp(atom)
      out.push(...parts.slice(0, -1))
      cur = parts[parts.length - 1]
    }
  }
  if (cur) out.push(cur)
  return out
}

/** Cuts a..b into pieces of at most `limit`: at clause ends first, then between words. */
function fit(r: Range, limit: number, p: ChunkPlanInput): Range[] {
  const words = (c: Range): Range[] => pack(split(c[0], c[1], BREAK.none, () => BREAK.clause), limit, p.measure,
    (w) => [w])
  return pack(split(r[0], r[1], BREAK.clause, p.breakAfter), limit, p.measure, words)
}

/** Whole sentences packed up to the limit (`normal`), or one sentence at most per chunk (`low`). */
function fill(a: number, b: number, joinSentences: boolean, p: ChunkPlanInput): Range[] {
  const sentences = split(a, b, BREAK.sentence, p.breakAfter)
  if (joinSentences) return pack(sentences, p.chunkLength, p.measure, (s) => fit(s, p.chunkLength, p))
  return sentences.flatMap((s) => fit(s, p.chunkLength, p))
}

/** The first chunk of the text, per latency mode; returns its last word index. */
function firstChunkEnd(a: number, b: number, p: ChunkPlanInput): number {
  if (p.latency === 'normal') return -1
  let end = b
  for (let i = a; i <= b; i++) {
    const level = p.breakAfter(i)
    const enough = p.latency === 'balanced' || i - a + 1 >= LOW_FIRST_MIN_WORDS
    if (level >= (p.latency === 'balanced' ? BREAK.sentence : BREAK.clause) && enough) {
      end = i
      break
    }
  }
  const limit = p.latency === 'balanced' ? Math.min(p.chunkLength, BALANCED_FIRST_LENGTH) : p.chunkLength
  const fitted = (fit([a, end], limit, p)[0] as Range)[1]
  return p.latency === 'low' ? phraseEnd(a, fitted, p) : fitted
}

/** The end of the first phrase of a..end when that clause is long: just before a phrase-opening word. */
function phraseEnd(a: number, end: number, p: ChunkPlanInput): number {
  if (!p.opensPhrase || end - a + 1 <= LOW_FIRST_MAX_WORDS) return end
  // At least LOW_FIRST_MIN_WORDS words before the cut, and two after it, so neither side is a fragment.
  for (let i = a + LOW_FIRST_MIN_WORDS; i <= end - 1; i++) {
    if (p.breakAfter(i - 1) === BREAK.none && p.opensPhrase(i)) return i - 1
  }
  return end
}

function segments(p: ChunkPlanInput): Range[] {
  return split(0, p.count - 1, 1, (i) => (p.hardAfter(i) ? 1 : 0))
}

/**
 * Word ranges of the chunks. Chunks never cross a hard boundary and are at most `chunkLength` long unless a
 * single word is longer. Then chunks shorter than `minChunkLength` are merged into the next (the last one
 * into the previous) when the result fits, except `low` latency's first chunk.
 */
export function planChunks(p: ChunkPlanInput): Range[] {
  if (p.count === 0) return []
  const planned: { range: Range; segment: number }[] = []
  segments(p).forEach(([a, b], s) => {
    let start = a
    if (s === 0) {
      const end = firstChunkEnd(a, b, p)
      if (end >= 0) {
        planned.push({ range: [a, end], segment: s })
        start = end + 1
      }
    }
    if (start > b) return
    for (const range of fill(start, b, p.latency !== 'low', p)) planned.push({ range, segment: s })
  })
  return mergeShort(planned, p).map((c) => c.range)
}

function mergeShort(chunks: { range: Range; segment: number }[], p: ChunkPlanInput) {
  const { measure: m, minChunkLength: min, chunkLength: limit } = p
  const out: { range: Range; segment: number }[] = []
  const pinned = p.latency === 'low' ? chunks[0] : undefined
  for (const c of chunks) {
    const last = out[out.length - 1]
    if (last && last !== pinned && last.segment === c.segment && m(...last.range) < min
      && m(last.range[0], c.range[1]) <= limit) {
      out[out.length - 1] = { range: [last.range[0], c.range[1]], segment: c.segment }
    } else {
      out.push(c)
    }
  }
  const last = out[out.length - 1]
  const prev = out[out.length - 2]
  if (last && prev && prev !== pinned && prev.segment === last.segment && m(...last.range) < min
    && m(prev.range[0], last.range[1]) <= limit) {
    out.splice(out.length - 2, 2, { range: [prev.range[0], last.range[1]], segment: last.segment })
  }
  return out
}
