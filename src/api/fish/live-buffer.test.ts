import { describe, expect, it } from 'vitest'
import { pauseAfterMs, splitFirstPhrase, TextBuffer } from './live-buffer.js'

const feed = (buffer: TextBuffer, text: string): string[] => {
  const units: string[] = []
  for (const token of text.match(/\S+\s*/g) ?? []) {
    buffer.append(token)
    const unit = buffer.takeReady()
    if (unit) units.push(unit)
  }
  return units
}

describe('TextBuffer', () => {
  it('gives complete sentences once the next token shows they ended, and the rest on takeAll', () => {
    const b = new TextBuffer(200, 's2-pro')
    expect(feed(b, 'Hello there. It costs 3.5 dollars. And then')).toEqual(['Hello there. ', 'It costs 3.5 dollars. '])
    expect(b.takeAll()).toBe('And then')
    expect(b.takeAll()).toBe('')
  })

  it('holds a sentence end at the very end of the buffer ("3." may become "3.5")', () => {
    const b = new TextBuffer(200, 's2-pro')
    b.append('It is 3.')
    expect(b.takeReady()).toBe('')
    b.append('5 now. ')
    expect(b.takeReady()).toBe('It is 3.5 now. ')
  })

  it('cuts Chinese at its full stop without a space', () => {
    const b = new TextBuffer(200, 's2-pro')
    b.append('今天很好。明天')
    expect(b.takeReady()).toBe('今天很好。')
    expect(b.takeAll()).toBe('明天')
  })

  it('without a sentence end, cuts at the last space before chunk_length, never inside a tag', () => {
    const b = new TextBuffer(30, 's2-pro')
    b.append('one two three four five [very excited] six seven')
    const unit = b.takeReady()
    expect(unit).toBe('one two three four five ')
    // The tag opens the rest; the expression of the cut sentence carries on (none here).
    expect(b.takeAll()).toBe('[very excited] six seven')
  })

  it('repeats the speaker tag at the start of every later unit', () => {
    const b = new TextBuffer(200, 's2-pro')
    expect(feed(b, '<|speaker:1|>Hello there. How are you? <|speaker:0|>Fine. Thanks')).toEqual([
      '<|speaker:1|>Hello there. ',
      '<|speaker:1|> How are you? ',
      '<|speaker:0|>Fine. ',
    ])
    expect(b.takeAll()).toBe('<|speaker:0|> Thanks')
  })

  it('carries an expression tag over a cut inside its sentence, not past the sentence end', () => {
    const b = new TextBuffer(40, 's1')
    b.append('(excited) This sentence is much longer than forty characters')
    expect(b.takeReady()).toBe('(excited) This sentence is much longer ')
    b.append('. Calm again. ')
    expect(b.takeReady()).toBe('(excited) than forty characters. Calm again. ')
    b.append('Still calm')
    expect(b.takeAll()).toBe('Still calm')
  })
})

describe('splitFirstPhrase', () => {
  it('splits at the first clause end within seven words', () => {
    expect(splitFirstPhrase('Sure, I can help you with that today.', 's2-pro')).toEqual(['Sure, ', 'I can help you with that today.'])
    expect(splitFirstPhrase('Well then, here we go again my friend.', 's2-pro')).toEqual(['Well then, ', 'here we go again my friend.'])
  })

  it('without punctuation, splits before a word that opens a phrase', () => {
    expect(splitFirstPhrase('The quick brown fox jumps over the lazy dog', 's2-pro')).toEqual(['The quick brown fox jumps ', 'over the lazy dog'])
    expect(splitFirstPhrase('Let me check that for you and get back soon', 's2-pro')).toEqual(['Let me check that ', 'for you and get back soon'])
    expect(splitFirstPhrase('I think we should meet again tomorrow', 's2-pro')).toEqual(['I think ', 'we should meet again tomorrow'])
  })

  it('keeps short text and text without a phrase boundary whole', () => {
    expect(splitFirstPhrase('Hello there, friend.', 's2-pro')).toEqual(['Hello there, friend.'])
    expect(splitFirstPhrase('Seventeen purple elephants danced gracefully yesterday evening', 's2-pro')).toEqual([
      'Seventeen purple elephants danced gracefully yesterday evening',
    ])
  })

  it('repeats the tags in effect at the cut', () => {
    expect(splitFirstPhrase('<|speaker:2|>[whispering] Okay, listen to me very carefully now.', 's2-pro')).toEqual([
      '<|speaker:2|>[whispering] Okay, ',
      '<|speaker:2|>[whispering] listen to me very carefully now.',
    ])
  })
})

describe('pauseAfterMs', () => {
  it('is the natural pause of the last punctuation, tags aside', () => {
    expect(pauseAfterMs('Hello there. ', 's2-pro')).toBe(300)
    expect(pauseAfterMs('Hello there? [laughing] ', 's2-pro')).toBe(300)
    expect(pauseAfterMs('Well, ', 's2-pro')).toBe(150)
    expect(pauseAfterMs('The quick brown fox ', 's2-pro')).toBe(0)
  })
})
