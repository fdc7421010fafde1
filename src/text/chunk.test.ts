import { describe, expect, it } from 'vitest'
import { BALANCED_FIRST_LENGTH, LOW_FIRST_MAX_WORDS } from './chunk.js'
import { planText } from './plan.js'
import type { Latency, TextChunk, TextPipelineOptions } from './types.js'

const BASE: TextPipelineOptions = {
  dialect: 's2-pro', normalize: false, chunkLength: 100, minChunkLength: 0, latency: 'normal', language: 'en',
}

function contents(text: string, options: Partial<TextPipelineOptions> = {}): string[] {
  return planText(text, { ...BASE, ...options }).map((c) => c.content)
}

const STORY = [
  'Well, I think we should go now, because it is getting late and the roads are icy.',
  'The car is parked outside.',
  'Bring your coat, your hat, and the small bag with the maps, the snacks and the torch.',
  'We leave at once.',
].join(' ')

function expectWellFormed(text: string, chunks: readonly TextChunk[], limit: number): void {
  const words = text.split(/\s+/).filter((w) => w !== '')
  // Chunks cover the text in order, split only between words.
  expect(chunks.map((c) => c.content).join(' ').split(' ')).toEqual(words)
  for (const c of chunks) {
    expect(c.content.length).toBeLessThanOrEqual(limit)
    expect(c.spoken.length).toBeLessThanOrEqual(limit)
  }
}

describe('chunk bounds', () => {
  it.each([100, 150, 200, 300])('never exceeds chunk_length %i and never splits a word', (limit) => {
    const text = Array.from({ length: 12 }, () => STORY).join(' ')
    for (const latency of ['low', 'balanced', 'normal'] as const) {
      for (const minChunkLength of [0, 50, 100]) {
        expectWellFormed(text, planText(text, { ...BASE, chunkLength: limit, latency, minChunkLength }), limit)
      }
    }
  })

  it('bounds the spoken text too when normalization makes it longer than the written one', () => {
    const text = Array.from({ length: 20 }, (_, i) => `Pay $${i + 1},250.75 on ${i % 12 + 1}/4/2025.`).join(' ')
    const chunks = planText(text, { ...BASE, normalize: true })
    for (const c of chunks) expect(c.spoken.length).toBeLessThanOrEqual(100)
    expect(chunks.length).toBeGreaterThan(10)
  })

  it('splits a long sentence at clause boundaries before falling back to word boundaries', () => {
    const sentence = 'The first part of this sentence is long enough, the second part is just as long as that, '
      + 'and the third part finishes the thought nicely.'
    expect(contents(sentence)).toEqual([
      'The first part of this sentence is long enough, the second part is just as long as that,',
      'and the third part finishes the thought nicely.',
    ])
  })

  it('splits at word boundaries when there is no punctuation', () => {
    const text = 'alpha beta gamma delta '.repeat(10).trim()
    const chunks = contents(text)
    expect(chunks.every((c) => c.length <= 100)).toBe(true)
    expect(chunks.join(' ')).toBe(text)
    expect(chunks[0]).toBe('alpha beta gamma delta '.repeat(4) + 'alpha')
  })

  it('keeps a single word longer than chunk_length whole, in a chunk of its own', () => {
    const url = 'https://example.com/' + 'a'.repeat(120)
    expect(contents(`See ${url} now.`)).toEqual(['See', url, 'now.'])
  })
})

describe('latency modes', () => {
  const options = (latency: Latency) => ({ latency, chunkLength: 200 })

  it('low: the first chunk is the first clause of at least three words, then one sentence at most', () => {
    expect(contents(STORY, options('low'))).toEqual([
      'Well, I think we should go now,',
      'because it is getting late and the roads are icy.',
      'The car is parked outside.',
      'Bring your coat, your hat, and the small bag with the maps, the snacks and the torch.',
      'We leave at once.',
    ])
  })

  it('low: a first clause of fewer than three words is extended, even across a sentence end', () => {
    expect(contents('Hi. How are you? Fine, thanks, and you?', options('low'))).toEqual([
      'Hi. How are you?',
      'Fine, thanks, and you?',
    ])
  })

  it(`low: a first clause of more than ${LOW_FIRST_MAX_WORDS} words is cut before its first phrase-opening word`, () => {
    expect(contents('The quick brown fox jumps over the lazy dog, near the river bank.', options('low'))).toEqual([
      'The quick brown fox jumps', 'over the lazy dog, near the river bank.',
    ])
    // Short clauses, and long ones with no preposition or conjunction, stay whole.
    expect(contents('Please call me back, okay?', options('low'))[0]).toBe('Please call me back,')
    expect(contents('Seven big yellow taxis raced past quickly today, honking.', options('low'))[0])
      .toBe('Seven big yellow taxis raced past quickly today,')
  })

  it('balanced: the first chunk is the first sentence, then whole sentences are packed', () => {
    expect(contents(STORY, options('balanced'))).toEqual([
      'Well, I think we should go now, because it is getting late and the roads are icy.',
      'The car is parked outside. Bring your coat, your hat, and the small bag with the maps, the snacks and the '
      + 'torch. We leave at once.',
    ])
  })

  it(`balanced: a first sentence longer than ${BALANCED_FIRST_LENGTH} characters is cut at a clause`, () => {
    const first = 'This opening sentence is deliberately long, so long that it runs past the balanced limit for a '
      + 'first chunk, and it goes on.'
    expect(first.length).toBeGreaterThan(BALANCED_FIRST_LENGTH)
    expect(contents(`${first} End.`, options('balanced'))).toEqual([
      'This opening sentence is deliberately long, so long that it runs past the balanced limit for a first chunk,',
      'and it goes on. End.',
    ])
  })

  it('normal: whole sentences are packed from the start (fewest joins)', () => {
    expect(contents(STORY, options('normal'))).toEqual([
      'Well, I think we should go now, because it is getting late and the roads are icy. The car is parked outside. '
      + 'Bring your coat, your hat, and the small bag with the maps, the snacks and the torch.',
      'We leave at once.',
    ])
  })

  it('low produces a shorter first chunk than balanced, and balanced no longer than normal', () => {
    const first = (latency: Latency) => planText(STORY, { ...BASE, latency, chunkLength: 300 })[0]?.content.length ?? 0
    expect(first('low')).toBeLessThan(first('balanced'))
    expect(first('balanced')).toBeLessThanOrEqual(first('normal'))
  })
})

describe('min_chunk_length', () => {
  const text = 'One two three, four. Five six. Seven eight nine ten.'

  it('leaves short chunks alone at 0', () => {
    expect(contents(text, { latency: 'low' })).toEqual(['One two three,', 'four.', 'Five six.', 'Seven eight nine ten.'])
  })

  it('merges chunks shorter than it into the next, but never the low-latency first chunk', () => {
    expect(contents(text, { latency: 'low', minChunkLength: 20 })).toEqual([
      'One two three,', 'four. Five six. Seven eight nine ten.',
    ])
  })

  it('merges a short first sentence in balanced mode', () => {
    expect(contents('Hi. This is a longer second sentence that goes on.', { latency: 'balanced', minChunkLength: 50 }))
      .toEqual(['Hi. This is a longer second sentence that goes on.'])
  })

  it('merges a short last chunk into the previous one', () => {
    const long = 'This sentence is long enough to stand on its own as a chunk, surely it is.'
    expect(contents(`${long} Short end.`, { latency: 'low', minChunkLength: 30 })).toEqual([
      'This sentence is long enough', 'to stand on its own as a chunk, surely it is. Short end.',
    ])
  })

  it('never merges across an expression, speaker or pause boundary', () => {
    expect(contents('[sad] Oh. [happy] Yes! [pause] Go.', { minChunkLength: 100 })).toEqual(['Oh.', 'Yes!', 'Go.'])
  })
})

describe('pauses and boundaries', () => {
  it('sets natural pauses: clause 150, sentence 300, paragraph 600, none after the last chunk', () => {
    const chunks = planText('First clause here, and more. Second sentence.\n\nNew paragraph.', {
      ...BASE, latency: 'low', chunkLength: 100,
    })
    expect(chunks.map((c) => [c.content, c.pauseAfterMs])).toEqual([
      ['First clause here,', 150], ['and more.', 300], ['Second sentence.', 600], ['New paragraph.', 0],
    ])
  })

  it('treats a single line break as a sentence end unless the next line continues in lower case', () => {
    // The expression of "[sad]" lasts to the sentence end, which shows where the sentence ended.
    expect(planText('[sad] Title Line\nBody starts here', BASE).map((c) => [c.content, c.expression.tags]))
      .toEqual([['Title Line', ['sad']], ['Body starts here', []]])
    expect(planText('[sad] a hard wrapped\nline of prose', BASE).map((c) => [c.content, c.expression.tags]))
      .toEqual([['a hard wrapped line of prose', ['sad']]])
  })

  it('handles Chinese punctuation: 。！？ end sentences, ，；： end clauses', () => {
    const text = '今天天气很好，我们去公园散步吧！公园里有很多人；有的在跑步，有的在唱歌。你想去吗？'
    const chunks = planText(text, { ...BASE, language: undefined, latency: 'low', chunkLength: 100 })
    expect(chunks.map((c) => [c.content, c.pauseAfterMs, c.language])).toEqual([
      ['今天天气很好，', 150, 'zh'],
      ['我们去公园散步吧！', 300, 'zh'],
      ['公园里有很多人；有的在跑步，有的在唱歌。', 300, 'zh'],
      ['你想去吗？', 0, 'zh'],
    ])
  })

  it('splits a long Chinese text within the limit at 。 and ，', () => {
    const text = '我们今天去公园散步，看到了很多美丽的花，还有很多小鸟在树上唱歌。'.repeat(8)
    const chunks = planText(text, { ...BASE, language: undefined, chunkLength: 100 })
    expect(chunks.map((c) => c.content).join('')).toBe(text)
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(100)
      expect(c.content).toMatch(/[。，]$/)
    }
  })

  it('starts a new chunk where the language changes', () => {
    const chunks = planText('Hello there, my friend. 你好，世界。', { ...BASE, language: undefined, chunkLength: 200 })
    expect(chunks.map((c) => [c.content, c.language])).toEqual([['Hello there, my friend.', 'en'], ['你好，世界。', 'zh']])
  })
})
