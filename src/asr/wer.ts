/** Word error rate, for tests and benchmarks: case, punctuation and `(2)` variant markers do not count. */

/** Lower-cased words without punctuation; apostrophes inside words stay (`don't`). */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\(\d+\)/g, ' ')
    .replace(/[^a-z0-9'\s]+/g, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
}

/** Minimum substitutions + deletions + insertions turning `reference` into `hypothesis` (word level). */
export function wordEdits(reference: readonly string[], hypothesis: readonly string[]): number {
  // In an optimal alignment every reference word not heard is one substitution or deletion, every extra word one insertion.
  const { heard, insertedBefore } = alignWords(reference, hypothesis)
  return heard.filter((h) => !h).length + insertedBefore.reduce((sum, n) => sum + n, 0)
}

/**
 * One optimal alignment of `reference` to `hypothesis`: for each reference word, whether it was heard
 * (matched exactly), and for each gap between reference words (index i = before word i; the last one after the
 * final word) how many words were inserted there. Among equally short edit scripts the one with the most
 * matches is taken, so a word is only called misheard when no optimal alignment hears it.
 */
export function alignWords(reference: readonly string[], hypothesis: readonly string[]): { heard: boolean[], insertedBefore: number[] } {
  const rows = reference.length + 1
  const cols = hypothesis.length + 1
  // cost[i][j]: edits turning reference[0, i) into hypothesis[0, j); matches[i][j]: the most exact matches
  // among the scripts of that cost (ties go to hearing more words).
  const cost = Array.from({ length: rows }, (_, i) => Int32Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  const matches = Array.from({ length: rows }, () => new Int32Array(cols))
  const better = (c: number, m: number, i: number, j: number) => c < cost[i]![j]! || (c === cost[i]![j]! && m > matches[i]![j]!)
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const same = reference[i - 1] === hypothesis[j - 1]
      cost[i]![j] = cost[i - 1]![j - 1]! + (same ? 0 : 1)
      matches[i]![j] = matches[i - 1]![j - 1]! + (same ? 1 : 0)
      if (better(cost[i - 1]![j]! + 1, matches[i - 1]![j]!, i, j)) [cost[i]![j], matches[i]![j]] = [cost[i - 1]![j]! + 1, matches[i - 1]![j]!]
      if (better(cost[i]![j - 1]! + 1, matches[i]![j - 1]!, i, j)) [cost[i]![j], matches[i]![j]] = [cost[i]![j - 1]! + 1, matches[i]![j - 1]!]
    }
  }
  const heard = new Array<boolean>(reference.length).fill(false)
  const insertedBefore = new Array<number>(rows).fill(0)
  let i = reference.length
  let j = hypothesis.length
  while (i > 0 || j > 0) {
    const same = i > 0 && j > 0 && reference[i - 1] === hypothesis[j - 1]
    if (i > 0 && j > 0 && cost[i - 1]![j - 1]! + (same ? 0 : 1) === cost[i]![j] && matches[i - 1]![j - 1]! + (same ? 1 : 0) === matches[i]![j]) {
      heard[i - 1] = same
      i--
      j--
    } else if (i > 0 && cost[i - 1]![j]! + 1 === cost[i]![j] && matches[i - 1]![j] === matches[i]![j]) {
      i--
    } else {
      insertedBefore[i]!++
      j--
    }
  }
  return { heard, insertedBefore }
}

export interface WerResult {
  readonly errors: number
  readonly words: number
  /** errors / reference words; 0 when both are empty, 1 per inserted word when the reference is empty. */
  readonly wer: number
}

export function wer(reference: string, hypothesis: string): WerResult {
  const ref = normalizeWords(reference)
  const errors = wordEdits(ref, normalizeWords(hypothesis))
  return { errors, words: ref.length, wer: ref.length === 0 ? errors : errors / ref.length }
}

/** Pooled WER over many pairs: total errors over total reference words. */
export function corpusWer(pairs: readonly { reference: string, hypothesis: string }[]): WerResult {
  let errors = 0
  let words = 0
  for (const p of pairs) {
    const r = wer(p.reference, p.hypothesis)
    errors += r.errors
    words += r.words
  }
  return { errors, words, wer: words === 0 ? errors : errors / words }
}
