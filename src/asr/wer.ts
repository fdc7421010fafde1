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
  let prev = Array.from({ length: hypothesis.length + 1 }, (_, j) => j)
  for (let i = 1; i <= reference.length; i++) {
    const row = [i]
    for (let j = 1; j <= hypothesis.length; j++) {
      const same = reference[i - 1] === hypothesis[j - 1]
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (same ? 0 : 1)))
    }
    prev = row
  }
  return prev[hypothesis.length]!
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
