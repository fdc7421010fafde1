import { describe, expect, it } from 'vitest'
import { SpeechError } from '../errors.js'
import { planText } from './plan.js'
import { isSsml, readSsml, ssmlToMarkup } from './ssml.js'
import type { TextChunk } from './types.js'

const plan = (ssml: string): TextChunk[] =>
  planText(ssmlToMarkup(ssml), { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal' })
const spoken = (ssml: string) => plan(ssml).map((c) => c.spoken).join(' ')
const refusal = (ssml: string): string => {
  try {
    ssmlToMarkup(ssml)
  } catch (err) {
    expect(err).toBeInstanceOf(SpeechError)
    expect((err as SpeechError).status).toBe(422)
    return (err as SpeechError).message
  }
  throw new Error(`accepted: ${ssml}`)
}

describe('isSsml', () => {
  it('takes a document whose root is <speak>, with or without an XML declaration', () => {
    expect(isSsml('<speak>Hi.</speak>')).toBe(true)
    expect(isSsml('  <?xml version="1.0" encoding="UTF-8"?>\n<speak version="1.1" xml:lang="en-US">Hi.</speak>')).toBe(true)
    expect(isSsml('<speak/>')).toBe(true)
    expect(isSsml('<?xml version="1.0"?>\n<!DOCTYPE speak PUBLIC "-//W3C//DTD SYNTHESIS 1.0//EN" "http://www.w3.org/TR/speech-synthesis/synthesis.dtd">\n<!-- greeting -->\n<speak version="1.0">Hi.</speak>')).toBe(true)
    expect(spoken('<!DOCTYPE speak [<!ELEMENT speak ANY>]><speak>Hi there.</speak>')).toBe('Hi there.')
  })

  it('leaves text that only mentions tags as text', () => {
    expect(isSsml('Hello <speak>')).toBe(false)
    expect(isSsml('<speaker> said hello')).toBe(false)
    expect(isSsml('[pause] <speak>')).toBe(false)
  })
})

describe('ssmlToMarkup', () => {
  it('turns breaks into pauses: by time, by strength, and medium when it says neither', () => {
    const pauses = (ssml: string) => plan(ssml).map((c) => c.pauseAfterMs)
    expect(pauses('<speak>One <break time="1.5s"/> two</speak>')).toEqual([1500, 0])
    expect(pauses('<speak>One <break time="250ms"/> two</speak>')).toEqual([250, 0])
    expect(pauses('<speak>One <break strength="x-strong"/> two</speak>')).toEqual([1000, 0])
    expect(pauses('<speak>One <break/> two</speak>')).toEqual([400, 0])
    // Longer than Parla's longest pause: that pause.
    expect(pauses('<speak>One <break time="20s"/> two</speak>')).toEqual([5000, 0])
    expect(plan('<speak>One <break strength="none"/> two</speak>')).toHaveLength(1)
  })

  it('speaks a sub\'s alias for its content, and say-as letters, digits and ordinals as asked', () => {
    expect(spoken('<speak>The <sub alias="World Wide Web Consortium">W3C</sub> met.</speak>')).toBe('The World Wide Web Consortium met.')
    expect(spoken('<speak>Spell <say-as interpret-as="characters">cat</say-as>.</speak>')).toBe('Spell c a t.')
    expect(spoken('<speak>Dial <say-as interpret-as="digits">911</say-as>.</speak>')).toBe('Dial nine one one.')
    expect(spoken('<speak>The <say-as interpret-as="ordinal">22</say-as> time.</speak>')).toBe('The twenty-second time.')
    expect(spoken('<speak>Room <say-as interpret-as="cardinal">42</say-as>.</speak>')).toBe('Room forty-two.')
    // Its own attributes (a language) set the span without becoming letters to spell.
    expect(plan('<speak>Spell <say-as interpret-as="characters" xml:lang="de">ab</say-as>.</speak>').map((c) => [c.spoken, c.language]))
      .toEqual([['Spell', 'en'], ['a b.', 'de']])
  })

  it('keeps a prosody span across sentences, restores the outer one at its end, and nests', () => {
    const chunks = plan('<speak>Plain. <prosody rate="slow" pitch="+2st">Slow one. Slow two. <prosody volume="+6dB" rate="80%">Also loud.</prosody> Slow three.</prosody> Plain again.</speak>')
    const by = (text: string) => chunks.find((c) => c.content.includes(text))!.expression
    expect(by('Plain.')).toMatchObject({ rate: 1, pitchSemitones: 0, volumeDb: 0 })
    expect(by('Slow one.')).toMatchObject({ rate: 0.75, pitchSemitones: 2, volumeDb: 0 })
    expect(by('Slow two.')).toMatchObject({ rate: 0.75, pitchSemitones: 2 })
    expect(by('Also loud.')).toMatchObject({ rate: 0.6, pitchSemitones: 2, volumeDb: 6 })
    expect(by('Slow three.')).toMatchObject({ rate: 0.75, pitchSemitones: 2, volumeDb: 0 })
    expect(by('Plain again.')).toMatchObject({ rate: 1, pitchSemitones: 0, volumeDb: 0 })
  })

  it('reads prosody values as SSML writes them, within Parla\'s limits', () => {
    const expression = (attrs: string) => plan(`<speak><prosody ${attrs}>Words here.</prosody></speak>`)[0]!.expression
    expect(expression('rate="x-fast"').rate).toBe(1.5)
    expect(expression('rate="+20%"').rate).toBe(1.2)
    expect(expression('rate="1.1"').rate).toBe(1.1)
    expect(expression('pitch="x-low"').pitchSemitones).toBe(-6)
    expect(expression('pitch="+12%"').pitchSemitones).toBeCloseTo(1.96, 2)
    expect(expression('volume="soft"').volumeDb).toBe(-6)
    expect(expression('volume="-3dB"').volumeDb).toBe(-3)
    expect(expression('rate="10"').rate).toBe(2)
  })

  it('gives emphasis its own prosody, and none for level none', () => {
    const [, strong] = plan('<speak>This is <emphasis level="strong">important</emphasis> now.</speak>')
    expect(strong!.content).toBe('important')
    expect(strong!.expression.rate).toBeLessThan(1)
    expect(strong!.expression.volumeDb).toBeGreaterThan(0)
    expect(plan('<speak>This is <emphasis level="none">plain</emphasis> now.</speak>')).toHaveLength(1)
  })

  it('sets the language of a span from xml:lang, on <lang>, <speak>, <p>, <s> or <voice>', () => {
    const chunks = plan('<speak>Good morning to you all. <lang xml:lang="de-DE">Guten Morgen, wie geht es dir?</lang> <voice xml:lang="fr">Bonjour à tous.</voice> And goodbye.</speak>')
    expect(chunks.map((c) => [c.language, c.languageDecision.reason])).toEqual([
      ['en', 'default'], ['de', 'markup'], ['fr', 'markup'], ['en', 'default'],
    ])
    expect(plan('<speak xml:lang="es-ES">Hola.</speak>')[0]).toMatchObject({ language: 'es', languageDecision: { reason: 'markup', confidence: 1 } })
  })

  it('turns each named voice into a speaker after the request\'s own, and returns to the outer one at its end', () => {
    const { text, voices } = readSsml('<speak>Hi. <voice name="flite-awb">Hello there. <voice name="my-voice">Inner.</voice> Back.</voice> Bye. <voice name="flite-awb">Again.</voice></speak>', 2)
    expect(voices).toEqual(['flite-awb', 'my-voice'])
    const chunks = planText(text, { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal' })
    expect(chunks.map((c) => [c.content, c.speaker])).toEqual([['Hi.', 0], ['Hello there.', 2], ['Inner.', 3], ['Back.', 2], ['Bye.', 0], ['Again.', 2]])
    // A voice without a name only sets what it says (its language), not a speaker.
    expect(readSsml('<speak><voice xml:lang="de">Hallo.</voice></speak>').voices).toEqual([])
  })

  it('makes paragraphs and sentences of <p> and <s>, ending a sentence that has no full stop', () => {
    const chunks = plan('<speak><p><s>First line</s><s>second line</s></p><p>Next paragraph.</p></speak>')
    expect(chunks.map((c) => c.content)).toEqual(['First line. second line.', 'Next paragraph.'])
    expect(chunks[0]!.pauseAfterMs).toBe(600)
  })

  it('reads the text of elements it cannot perform, and leaves out what is not to be spoken', () => {
    expect(spoken('<speak>A <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme>. <audio src="bell.wav">Ding.<desc>a bell</desc></audio> <mark name="here"/>End. <!-- a comment --></speak>'))
      .toBe('A tomato. Ding. End.')
    expect(ssmlToMarkup('<speak>Fish &amp; chips, 3 &lt; 4.</speak>')).toBe('Fish & chips, 3 < 4.')
    expect(spoken('<speak>Fish &amp; chips.</speak>')).toBe('Fish and chips.')
  })

  it('refuses a document that is not well-formed, or a value it cannot read, naming where', () => {
    expect(refusal('<speak>Unclosed <prosody rate="slow">tag</speak>')).toMatch(/^text is SSML \(it starts with <speak>\) but is not well-formed \(.*\) at line 1, column \d+; fix the markup, or send plain text$/)
    expect(refusal('<speak>\nOne\n<break time="5 parsecs"/></speak>')).toMatch(/<break time="5 parsecs"> is not a duration; write it as 500ms or 2s at line 3/)
    expect(refusal('<speak><prosody rate="warp">x</prosody></speak>')).toMatch(/<prosody rate="warp"> is not x-slow…x-fast/)
    expect(refusal('<speak><prosody pitch="+50Hz">x</prosody></speak>')).toMatch(/<prosody pitch="\+50Hz">/)
    expect(refusal('<speak><sub>x</sub></speak>')).toMatch(/<sub> has no alias/)
    expect(refusal('<speak><emphasis level="mega">x</emphasis></speak>')).toMatch(/level="mega"/)
    expect(refusal('<speak>Caf&eacute;</speak>')).toMatch(/not well-formed/)
    expect(refusal('<speak>One.</speak> trailing')).toMatch(/not well-formed/)
  })
})
