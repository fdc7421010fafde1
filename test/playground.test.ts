import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb } from '../scripts/build-web.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { AUDIO_SPY, launchBrowser, type TestBrowser } from './helpers/browser.js'

/** Screenshots land here to be looked at (and are checked for their key elements below). */
const SHOTS = join(process.cwd(), '.vitest', 'screenshots')
const SLOW = 120_000

let server: TestServer
let browser: TestBrowser
let page: Page

beforeAll(async () => {
  await buildWeb()
  server = await startTestServer()
  await server.listen()
  browser = await launchBrowser()
  await mkdir(SHOTS, { recursive: true })
}, SLOW)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function openWithKey(key: string): Promise<Page> {
  const p = await browser.newPage()
  await p.addInitScript(AUDIO_SPY)
  await p.goto(server.url)
  await p.getByLabel('API key').fill(key)
  await p.getByRole('button', { name: 'Save key' }).click()
  return p
}

interface Heard {
  buffers: number
  samples: number
  peak: number
  rate: number
}

describe('playground: speak', { timeout: SLOW }, () => {
  it('plays the speech as it streams and lights up the words in order while it plays', async () => {
    page = await openWithKey(server.alice)
    await expect.poll(() => page.locator('#key-state').textContent()).toBe('Key accepted.')
    await page.getByLabel('Text', { exact: true }).fill('One two three four five six seven eight nine ten.')
    // Every change of the highlighted word is recorded, with the audio clock at that moment.
    await page.evaluate(() => {
      const seen: number[] = []
      ;(window as unknown as { __seen: number[] }).__seen = seen
      new MutationObserver(() => {
        const now = document.querySelector<HTMLElement>('#speak-out .word.now')
        const i = now ? Number(now.dataset.i) : -1
        if (i >= 0 && seen.at(-1) !== i) seen.push(i)
      }).observe(document.getElementById('speak-out')!, { subtree: true, attributes: true, attributeFilter: ['class'] })
    })
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await page.waitForFunction(() => (window as unknown as { __seen: number[] }).__seen.length >= 5, undefined, { timeout: SLOW })
    const heard = await page.evaluate(() => (window as unknown as { __heard: Heard }).__heard)
    expect(heard.buffers).toBeGreaterThan(0)
    expect(heard.rate).toBe(44_100)
    expect(heard.peak).toBeGreaterThan(0.05)
    await expect.poll(() => page.locator('#speak-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
    const seen = await page.evaluate(() => (window as unknown as { __seen: number[] }).__seen)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(await page.locator('#speak-out .word').count()).toBe(10)
    await page.screenshot({ path: join(SHOTS, 'speak.png'), fullPage: true })
  })
})
