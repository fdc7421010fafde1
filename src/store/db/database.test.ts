import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { freePort } from '../../../test/helpers/cluster.js'
import { dialectFor, openDatabase } from './database.js'

describe('databaseUrl', () => {
  it('a PostgreSQL that cannot be reached stops startup with a message naming the setting', async () => {
    const url = `postgres://parla:secret@127.0.0.1:${await freePort()}/parla`
    await expect(openDatabase(dialectFor(url, tmpdir()))).rejects.toThrow(
      /^databaseUrl: cannot use the PostgreSQL database \(connect ECONNREFUSED .*\); check host, port, user, password/,
    )
  })

  it('an unknown scheme is refused with the schemes Parla knows', () => {
    expect(() => dialectFor('mysql://db/parla', tmpdir())).toThrow('databaseUrl: unsupported scheme "mysql:"; supported: postgres, postgresql, sqlite')
  })
})
