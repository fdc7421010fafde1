import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fromHexTokens, writeHexTokens } from './byte-tokens.js'

const hex = (s: string | Buffer) => Buffer.from(s).toString('hex')

describe('Whisper byte tokens', () => {
  it('joins a character split over tokens and gives it to the token that completes it', () => {
    const yu = Buffer.from('语') // e8 af ad
    const r = fromHexTokens([hex(' 我们'), hex(yu.subarray(0, 2)), hex(Buffer.concat([yu.subarray(2), Buffer.from('音')]))])
    expect(r).toEqual({ text: ' 我们语音', tokens: [' 我们', '', '语音'] })
  })

  it('rewrites the tokens file as hexadecimal byte strings under the same ids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parla-hex-tokens-'))
    try {
      await writeFile(join(dir, 'tokens.txt'), `${Buffer.from(' Hello').toString('base64')} 0\n${Buffer.from([0xe8, 0xaf]).toString('base64')} 1\n`)
      await writeHexTokens(join(dir, 'tokens.txt'), join(dir, 'cache', 'hex.txt'))
      const lines = (await readFile(join(dir, 'cache', 'hex.txt'), 'utf8')).trim().split('\n')
      expect(lines.map((l) => [Buffer.from(l.split(' ')[0]!, 'base64').toString(), l.split(' ')[1]])).toEqual([[hex(' Hello'), '0'], ['e8af', '1']])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
