import { describe, expect, it } from 'vitest'
import { planText } from './plan.js'
import { parsePronunciations } from './pronunciations.js'
import type { TextPipelineOptions } from './types.js'

const lexicon = parsePronunciations({ nginx: 'engine x', US: 'United States', SQL: 'sequel', kubectl: '  cube   control ' }, 'test.json')
const OPTIONS: TextPipelineOptions = {
  dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal', pronunciations: lexicon,
}
const said = (text: string, options: Partial<TextPipelineOptions> = {}) =>
  planText(text, { ...OPTIONS, ...options }).map((c) => c.spoken).join(' ')

describe('pronunciations', () => {
  it('says a lower-case entry in any capitalisation, and one with capitals only as written', () => {
    expect(lexicon.say('Nginx')).toBe('engine x')
    expect(lexicon.say('NGINX')).toBe('engine x')
    expect(lexicon.say('US')).toBe('United States')
    expect(lexicon.say('us')).toBeUndefined()
    expect(lexicon.say('kubectl')).toBe('cube control')
    expect(lexicon.size).toBe(4)
  })

  it('takes precedence over normalization ("SQL" is not spelled), and maps the spoken words back to it for timing', () => {
    const text = 'Restart nginx, then tell us about SQL in the US in 5 minutes.'
    const [chunk] = planText(text, OPTIONS)
    expect(chunk?.spoken).toBe('Restart engine x, then tell us about sequel in the United States in five minutes.')
    const token = chunk?.tokens.find((t) => t.text === 'nginx')
    expect(token && text.slice(token.origStart, token.origEnd)).toBe('nginx')
    expect(token && chunk?.spoken.slice(token.spokenStart, token.spokenEnd)).toBe('engine x')
  })

  it('applies when a request turns normalization off, which still leaves numbers as written', () => {
    expect(said('Restart nginx in 5 minutes.', { normalize: false })).toBe('Restart engine x in 5 minutes.')
  })

  it('is refused with the entry to fix', () => {
    expect(() => parsePronunciations(['nginx'], 'p.json')).toThrow(/p\.json: expected one JSON object/)
    expect(() => parsePronunciations({ 'New York': 'noo york' }, 'p.json')).toThrow(/"New York" is not one word .*reads "New" "York"/)
    expect(() => parsePronunciations({ 'Wi-Fi!': 'why fye' }, 'p.json')).toThrow(/"Wi-Fi!" is not one word .*reads "Wi-Fi"/)
    expect(() => parsePronunciations({ '': 'nothing' }, 'p.json')).toThrow(/reads no word at all/)
    expect(parsePronunciations({ 'node.js': 'node jay ess', "don't": 'do not', 'C++': 'see plus plus' }, 'p.json').size).toBe(3)
    expect(() => parsePronunciations({ nginx: '' }, 'p.json')).toThrow(/"nginx" needs a non-empty string/)
    expect(() => parsePronunciations({ nginx: 5 }, 'p.json')).toThrow(/"nginx" needs a non-empty string/)
    expect(() => parsePronunciations({ nginx: 'x'.repeat(201) }, 'p.json')).toThrow(/at most 200/)
  })
})
