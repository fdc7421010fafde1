import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildWeb } from '../scripts/build-web.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { launchBrowser, type TestBrowser } from './helpers/browser.js'
import { writePiperVoice } from './support/neural-models.js'

/**
 * The playground's hint for a server without neural voices (it sees only `GET /model`): shown with the one
 * command that gets a natural voice, and absent once a neural voice is listed.
 */
const SLOW = 120_000
let browser: TestBrowser
let root: string
const servers: TestServer[] = []

/** A server on its own models folder, its built-in voices listed as `parla serve` lists them. */
async function serve(modelsDir: string): Promise<TestServer> {
  const server = await startTestServer({ modelsDir })
  servers.push(server)
  await server.listen()
  await seedBuiltinVoices(server.deps.models.repo, server.deps.keys, server.deps.speech.engines)
  return server
}

async function hintOn(server: TestServer): Promise<{ visible: boolean; text: string }> {
  const page = await browser.newPage()
  try {
    await page.goto(server.url)
    await page.getByLabel('API key').fill(server.alice)
    await page.getByRole('button', { name: 'Save key' }).click()
    await page.locator('#key-state', { hasText: /^Key accepted\.$/ }).waitFor({ timeout: SLOW })
    const hint = page.locator('#natural-hint')
    return { visible: await hint.isVisible(), text: (await hint.textContent()) ?? '' }
  } finally {
    await page.close()
  }
}

beforeAll(async () => {
  await buildWeb()
  root = await mkdtemp(join(tmpdir(), 'parla-hint-'))
  browser = await launchBrowser()
}, SLOW)

afterAll(async () => {
  await browser?.close()
  for (const s of servers) await s.close()
  await rm(root, { recursive: true, force: true })
})

describe('playground: how to get a natural voice', { timeout: SLOW }, () => {
  it('with only classic voices, says which command installs a natural one', async () => {
    const hint = await hintOn(await serve(join(root, 'empty')))
    expect(hint.visible).toBe(true)
    expect(hint.text).toMatch(/No neural voice is installed.+run parla models pull en_US-lessac-medium on the server \(parla models catalog lists more/)
  })

  it('says nothing once a neural voice is listed', async () => {
    await writePiperVoice(join(root, 'models'), 'en_US-tone-low')
    const server = await serve(join(root, 'models'))
    // Listed at once; `trained` once its package's check (one load in a throwaway process) has passed and the
    // voices are listed again (what `parla serve` does when a check ends).
    const neural = await server.deps.speech.engines.get('neural')
    await vi.waitFor(() => expect(neural.voices().some((v) => v.checking)).toBe(false), { timeout: SLOW, interval: 100 })
    await seedBuiltinVoices(server.deps.models.repo, server.deps.keys, server.deps.speech.engines)
    expect(await server.deps.models.repo.findById('neural-en-us-tone-low')).toMatchObject({ state: 'trained' })
    expect(await hintOn(server)).toEqual({ visible: false, text: '' })
  })
})
