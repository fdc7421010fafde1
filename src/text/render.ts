import type { Layout } from './layout.js'
import type { TokenMap } from './types.js'

export interface ChunkText {
  readonly content: string
  readonly spoken: string
  readonly tokens: readonly TokenMap[]
}

/** Length of the chunk of units a..b (inclusive): the longer of its content and its spoken text. */
export type Measure = (a: number, b: number) => number

/** O(1) chunk lengths from prefix sums, so the chunker can try as many ranges as it likes. */
export function measure(layout: Layout): Measure {
  const { units, spoken, gaps } = layout
  const n = units.length
  const words = new Array<number>(n + 1).fill(0)
  const said = new Array<number>(n + 1).fill(0)
  const gapContent = new Array<number>(n + 2).fill(0)
  const gapSpoken = new Array<number>(n + 2).fill(0)
  for (let k = 0; k < n; k++) {
    words[k + 1] = (words[k] as number) + (units[k]?.word.text.length ?? 0)
    said[k + 1] = (said[k] as number) + (spoken[k]?.length ?? 0)
  }
  for (let k = 0; k <= n; k++) {
    gapContent[k + 1] = (gapContent[k] as number) + (gaps[k]?.content.length ?? 0)
    gapSpoken[k + 1] = (gapSpoken[k] as number) + (gaps[k]?.spoken.length ?? 0)
  }
  return (a, b) => {
    const head = gaps[a]
    const tail = gaps[b + 1]
    if (!head || !tail) return 0
    const content = head.contentHead.length + (words[b + 1] as number) - (words[a] as number)
      + (gapContent[b + 1] as number) - (gapContent[a + 1] as number) + tail.contentTail.length
    const spokenLength = head.spokenHead.length + (said[b + 1] as number) - (said[a] as number)
      + (gapSpoken[b + 1] as number) - (gapSpoken[a + 1] as number) + tail.spokenTail.length
    return Math.max(content, spokenLength)
  }
}

/** Content, spoken text and token map of the units a..b (inclusive). */
export function renderChunk(layout: Layout, a: number, b: number): ChunkText {
  const { units, spoken, gaps } = layout
  let content = gaps[a]?.contentHead ?? ''
  let said = gaps[a]?.spokenHead ?? ''
  const tokens: TokenMap[] = []
  for (let k = a; k <= b; k++) {
    const unit = units[k]
    if (!unit) break
    if (k > a) {
      content += gaps[k]?.content ?? ''
      said += gaps[k]?.spoken ?? ''
    }
    const words = spoken[k] ?? unit.word.text
    tokens.push({
      text: unit.word.text,
      origStart: unit.word.start,
      origEnd: unit.word.end,
      spokenStart: said.length,
      spokenEnd: said.length + words.length,
    })
    content += unit.word.text
    said += words
  }
  content += gaps[b + 1]?.contentTail ?? ''
  said += gaps[b + 1]?.spokenTail ?? ''
  return { content, spoken: said, tokens }
}
