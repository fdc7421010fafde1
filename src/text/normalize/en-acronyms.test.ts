import { describe, expect, it } from 'vitest'
import { planText } from '../plan.js'

const base = { dialect: 's2-pro', normalize: true, chunkLength: 300, minChunkLength: 0, latency: 'normal' } as const
const spoken = (text: string) => planText(text, base).map((c) => c.spoken).join(' ')

describe('English acronyms, initialisms, addresses and symbols', () => {
  it.each([
    ['The CEO met the FBI.', 'The see ee oh met the eff bee eye.'],
    ['NASA and NATO agreed.', 'nasa and nato agreed.'],
    ['The U.N. met in D.C. today.', 'The you en met in dee see today.'],
    ['The API returns JSON over HTTP.', 'The ay pee eye returns jason over aych tee tee pee.'],
    ['Buy two USB-C cables.', 'Buy two you ess bee see cables.'],
    ['She has a PhD and two MBAs.', 'She has a pee aych dee and two em bee ays.'],
    ['World War II ended.', 'World War two ended.'],
    ['Write to john.doe@example.com today.', 'Write to john dot doe at example dot com today.'],
    ['Visit https://example.com/docs now.', 'Visit example dot com slash docs now.'],
    ['Node v20 is out.', 'Node version twenty is out.'],
    ['A 4K screen in Q3.', 'A four kay screen in cue three.'],
    ['Cut it 3 x 4 for 100+ people.', 'Cut it three times four for one hundred plus people.'],
  ])('%s → %s', (text, expected) => {
    expect(spoken(text)).toBe(expected)
  })

  it('leaves a shouted sentence to the engine rather than spelling every word', () => {
    expect(spoken('STOP THAT NOW')).toBe('STOP THAT NOW')
  })

  it('keeps the map from spoken words back to what the user wrote', () => {
    const [chunk] = planText('The CEO of NASA.', base)
    const ceo = chunk!.tokens.find((t) => t.text === 'CEO')!
    expect(chunk!.spoken.slice(ceo.spokenStart, ceo.spokenEnd)).toBe('see ee oh')
    expect('The CEO of NASA.'.slice(ceo.origStart, ceo.origEnd)).toBe('CEO')
  })
})
