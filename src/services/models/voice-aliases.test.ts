import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../config/load.js'
import { SpeechError } from '../../errors.js'
import { createVoiceAliases, getOrAlias, SHIPPED_ALIASES } from './voice-aliases.js'

describe('voice aliases', () => {
  it('ships the frameworks\' default cloud voices; the setting adds, overrides and drops', () => {
    const shipped = Object.keys(SHIPPED_ALIASES)
    expect(shipped).toContain('933563129e564b19a115bedd57b7406a')
    const aliases = createVoiceAliases(` mine=festival-kal , ${shipped[0]}=flite-rms,${shipped[1]}= `)
    expect(aliases.resolve('mine')).toBe('festival-kal')
    expect(aliases.resolve(shipped[0]!)).toBe('flite-rms')
    expect(aliases.resolve(shipped[1]!)).toBeUndefined()
    expect(aliases.resolve(shipped[2]!)).toBe('festival-slt')
    expect(aliases.resolve('festival-slt')).toBeUndefined()
  })

  it('a malformed setting is a config error that shows the form', () => {
    expect(() => createVoiceAliases('nonsense')).toThrow(ConfigError)
    expect(() => createVoiceAliases('=festival-slt')).toThrow(/is not id=model/)
  })

  it('reports each alias once, to the listener set', () => {
    const aliases = createVoiceAliases('a=x,b=y')
    const seen: string[] = []
    aliases.resolve('a')
    aliases.onFirstUse((alias, target) => seen.push(`${alias}>${target}`))
    for (const id of ['a', 'b', 'a', 'b', 'c']) aliases.resolve(id)
    expect(seen).toEqual(['a>x', 'b>y'])
  })

  it('getOrAlias reads the real model first and follows an alias only for a 404', async () => {
    const aliases = createVoiceAliases('gone=real,forbidden=real')
    const get = async (_account: string, id: string) => {
      if (id === 'real') return id
      throw new SpeechError(id === 'forbidden' ? 'forbidden' : 'not_found', id)
    }
    expect(await getOrAlias(get, aliases, 'acc', 'real')).toBe('real')
    expect(await getOrAlias(get, aliases, 'acc', 'gone')).toBe('real')
    await expect(getOrAlias(get, aliases, 'acc', 'forbidden')).rejects.toMatchObject({ code: 'forbidden' })
    await expect(getOrAlias(get, aliases, 'acc', 'other')).rejects.toMatchObject({ code: 'not_found' })
  })
})
