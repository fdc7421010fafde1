import { describe, expect, it } from 'vitest'
import { Envelope } from '../envelope.js'
import type { EspeakEventInfo } from './protocol.js'
import { escapeSsml } from './ssml.js'
import { WordTracker } from './words.js'

const word = (ms: number, position: number, length: number): EspeakEventInfo =>
  ({ type: 'word', audio_position: ms, text_position: position, word_length: length })
const end = (ms: number): EspeakEventInfo => ({ type: 'end', audio_position: ms, text_position: 0, word_length: 0 })

function track(text: string, events: EspeakEventInfo[], total: number) {
  const envelope = new Envelope(1000)
  envelope.push(new Float32Array(total * 1000).fill(0.5))
  const timeline = { offset: 0, envelope, emitted: total }
  const t = new WordTracker(text, escapeSsml(text).toText)
  return [...t.push(events, timeline), ...t.finish(total, timeline)].map((w) => [w.text, w.start, w.end])
}

describe('eSpeak word events', () => {
  it('merges the parts of a number and uses code-point positions', () => {
    const events = [word(0, 1, 1), word(300, 3, 3), word(500, 7, 2), word(700, 8, 2), word(900, 10, 5)]
    expect(track('😀 ran 25 miles', events, 1.2))
      .toEqual([['😀', 0, 0.3], ['ran', 0.3, 0.5], ['25', 0.5, 0.9], ['miles', 0.9, 1.2]])
  })

  it('treats a misplaced event after a one-letter word as the next word', () => {
    // eSpeak reports "while" at the space before it.
    const events = [word(0, 1, 5), word(300, 7, 1), word(360, 8, 1), end(900), word(900, 15, 2)]
    expect(track('after a while, we', events, 1.1))
      .toEqual([['after', 0, 0.3], ['a', 0.3, 0.36], ['while', 0.36, 0.9], ['we', 0.9, 1.1]])
  })

  it('keeps the later parts of a spoken symbol in the symbol', () => {
    const events = [word(0, 1, 4), word(375, 6, 1), word(713, 7, 1), word(1006, 8, 5), end(1300)]
    expect(track('Café 😀 owner.', events, 1.3))
      .toEqual([['Café', 0, 0.375], ['😀', 0.375, 1.006], ['owner', 1.006, 1.3]])
  })

  it('maps positions in the escaped text back to the original', () => {
    const text = 'a < b & c'
    expect(escapeSsml(text).engineText).toBe('a &lt; b &amp; c')
    // eSpeak points at the last character of an entity.
    const events = [word(0, 1, 1), word(100, 6, 1), word(200, 8, 1), word(300, 14, 1), word(400, 16, 1)]
    expect(track(text, events, 0.5)).toEqual([['a', 0, 0.1], ['<', 0.1, 0.2], ['b', 0.2, 0.3], ['&', 0.3, 0.4], ['c', 0.4, 0.5]])
  })
})
