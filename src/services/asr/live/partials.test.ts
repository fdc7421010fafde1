import { describe, expect, it } from 'vitest'
import { PartialTracker } from './partials.js'

const w = (s: string) => (s === '' ? [] : s.split(' '))

describe('PartialTracker', () => {
  it('makes a word stable once three hypotheses in a row agree on it and it is not the last', () => {
    const t = new PartialTracker()
    expect(t.update(w('go for'))).toEqual({ stable: [], tail: w('go for'), added: [] })
    expect(t.update(w('go forward'))).toMatchObject({ stable: [], added: [] })
    expect(t.update(w('go forward ten'))).toEqual({ stable: w('go'), tail: w('forward ten'), added: w('go') })
    expect(t.update(w('go forward ten me'))).toMatchObject({ stable: w('go forward'), added: w('forward') })
    expect(t.update(w('go forward ten meters'))).toEqual({ stable: w('go forward ten'), tail: w('meters'), added: w('ten') })
  })

  it('never takes a stable word back; later agreed words still come after a revision', () => {
    const t = new PartialTracker()
    for (const h of ['ten of', 'ten of clubs', 'ten of clubs']) t.update(w(h))
    expect(t.update(w('ten of clubs')).stable).toEqual(w('ten of'))
    for (const h of ['then of clubs and', 'then of clubs and four']) t.update(w(h))
    const p = t.update(w('then of clubs and four'))
    expect(p.stable).toEqual(w('ten of clubs and'))
    expect(p.tail).toEqual(w('four'))
  })
})
