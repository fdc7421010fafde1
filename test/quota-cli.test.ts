import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/load.js'
import { createDeps } from '../src/deps.js'
import { parla } from './helpers/cli.js'

/** `parla keys limits` and `parla keys usage` (the real bin) on a data directory a real server used. */
let dir: string
let keyId: string
let key: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-quota-cli-'))
  const created = await parla(['keys', 'create', '--name', 'quota me', '--data-dir', dir])
  expect(created.code, created.stderr).toBe(0)
  key = created.stdout.toString().trim()
  keyId = /created key ([0-9a-f]{16})/.exec(created.stderr)![1]!
})
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('parla keys limits', () => {
  it('sets limits on the key\'s account and shows them, as JSON and as text', async () => {
    const set = await parla(['keys', 'limits', keyId, '--concurrency', '5', '--rpm', '60', '--chars-month', '1000000', '--json', '--data-dir', dir])
    expect(set.code, set.stderr).toBe(0)
    const json = JSON.parse(set.stdout.toString())
    expect(json.limits).toEqual({ concurrency: 5, requestsPerMinute: 60, charactersPerMonth: 1_000_000, audioSecondsPerMonth: 0 })
    expect(json.own.sort()).toEqual(['charactersPerMonth', 'concurrency', 'requestsPerMinute'])

    // 'default' goes back to the quota* setting (here given on the command line).
    const back = await parla(['keys', 'limits', keyId, '--rpm', 'default', '--quota-requests-per-minute', '100', '--data-dir', dir])
    expect(back.code, back.stderr).toBe(0)
    const text = back.stdout.toString()
    expect(text).toContain(`account ${json.accountId}`)
    expect(text).toMatch(/concurrency\s+5\s*\n/)
    expect(text).toMatch(/rpm\s+100\s+\(default\)/)
    expect(text).toMatch(/audio-seconds-month\s+unlimited\s+\(default\)/)
  })

  it('says what is wrong with a bad value or an unknown id', async () => {
    const bad = await parla(['keys', 'limits', keyId, '--rpm', 'lots', '--data-dir', dir])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--rpm must be a whole number up to 2147483647, 'unlimited' or 'default', got 'lots'")
    const unknown = await parla(['keys', 'limits', 'nope', '--data-dir', dir])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no key or account with id nope')
  })
})

describe('parla keys usage', () => {
  it('shows what a key used through the server, per month', async () => {
    const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: dir, logLevel: 'silent' } })
    const deps = await createDeps(config)
    const app = await buildApp(deps)
    try {
      const res = await app.inject({ method: 'POST', url: '/v1/tts', headers: { authorization: `Bearer ${key}` }, payload: { text: 'Counted words.', format: 'wav' } })
      expect(res.statusCode, res.body).toBe(200)
    } finally {
      await app.close()
      await deps.close()
    }
    const run = await parla(['keys', 'usage', '--json', '--data-dir', dir])
    expect(run.code, run.stderr).toBe(0)
    const rows = JSON.parse(run.stdout.toString())
    expect(rows).toEqual([expect.objectContaining({ keyId, name: 'quota me', month: expect.stringMatching(/^\d{4}-\d{2}$/), requests: 1, characters: 'Counted words.'.length })])
    expect(rows[0].speechSeconds).toBeGreaterThan(0.3)
    const table = await parla(['keys', 'usage', '--data-dir', dir])
    expect(table.stdout.toString()).toMatch(new RegExp(`${keyId}\\tquota me\\t[0-9a-f]+\\t1\\t14\\t`))
    const badMonth = await parla(['keys', 'usage', '--month', 'last', '--data-dir', dir])
    expect(badMonth.code).toBe(2)
  })
})
