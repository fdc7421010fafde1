// The playground's Dictate button in a real browser: Chromium's fake capture device plays a real recording as
// the microphone, the page streams it to the live transcription socket as it plays, and the words show up grey
// while the speaker is still talking and black once the turn is final.
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb } from '../scripts/build-web.js'
import { wer } from '../src/asr/wer.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { fakeMicrophone, launchBrowser, MIC_SPY, type TestBrowser } from './helpers/browser.js'

// The functions handed to page.evaluate run in the browser; these names are only declared for them.
declare const window: any, document: any, getComputedStyle: any

const SLOW = 120_000
const RECORDING = fileURLToPath(new URL('./fixtures/real-speech/librivox-0870.wav', import.meta.url))
const TRUTH = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'
const SECONDS = 7.1

let server: TestServer
let browser: TestBrowser
let page: Page

beforeAll(async () => {
  await buildWeb()
  server = await startTestServer()
  await server.listen()
  await server.deps.asr.warm()
  browser = await launchBrowser(fakeMicrophone(RECORDING))
  page = await browser.newPage()
  await page.addInitScript(MIC_SPY)
  await page.goto(server.url)
  await page.getByLabel('API key').fill(server.alice)
  await page.getByRole('button', { name: 'Save key' }).click()
  await page.getByText('Key accepted.').waitFor({ timeout: SLOW })
}, SLOW)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function untilMicHasPlayed(p: Page, seconds: number): Promise<void> {
  await p.waitForFunction((s) => window.__mic.rate > 0 && window.__mic.frames / window.__mic.rate >= s, seconds, { timeout: SLOW })
}

describe('playground: Dictate', { timeout: SLOW }, () => {
  it('streams the microphone: grey partial words while the speaker talks, black final text when stopped', async () => {
    await page.getByRole('tab', { name: 'Transcribe' }).click()
    const dictate = page.getByRole('button', { name: 'Dictate', exact: true })
    expect(await dictate.getAttribute('aria-pressed')).toBe('false')
    await dictate.click()
    const stop = page.getByRole('button', { name: 'Stop dictating' })
    await stop.waitFor({ timeout: SLOW })
    expect(await stop.getAttribute('aria-pressed')).toBe('true')
    await page.locator('#dictate-state', { hasText: 'Listening' }).waitFor({ timeout: SLOW })

    // The first words that settle: grey, kept from screen readers until final, while the microphone still plays.
    const first = await page.waitForFunction(() => {
      const partial = [...document.querySelectorAll('#dictate-text .partial')].find((p: any) => p.textContent.trim() !== '')
      if (!partial) return false
      const text = partial.textContent.trim()
      return { text, playedSec: window.__mic.frames / window.__mic.rate, color: getComputedStyle(partial).color, hidden: partial.getAttribute('aria-hidden') }
    }, undefined, { timeout: SLOW, polling: 50 })
    const partial = await first.jsonValue() as { text: string; playedSec: number; color: string; hidden: string }
    expect(partial.playedSec, `"${partial.text}" came after ${partial.playedSec} s of the microphone`).toBeLessThan(SECONDS)
    expect(partial.color).toBe('rgb(107, 114, 128)')
    expect(partial.hidden).toBe('true')

    // Stop once the whole recording has been heard: the turn under way is committed and comes back final.
    await untilMicHasPlayed(page, SECONDS + 0.3)
    await stop.click()
    await dictate.waitFor({ timeout: SLOW })
    expect(await dictate.getAttribute('aria-pressed')).toBe('false')
    expect(await page.locator('#dictate-state').textContent()).toBe('Done.')
    expect(await page.locator('#dictate-text .partial').count()).toBe(0)
    const finals = page.locator('#dictate-text .final')
    expect(await finals.count()).toBeGreaterThanOrEqual(1)
    const colors = await finals.evaluateAll((spans) => spans.map((s) => getComputedStyle(s).color))
    expect(new Set(colors)).toEqual(new Set(['rgb(17, 17, 17)']))
    const heard = (await page.locator('#dictate-text').textContent())!.trim()
    expect(wer(TRUTH, heard).wer, heard).toBeLessThanOrEqual(0.5)
    expect(await page.getByRole('log', { name: 'Dictated text' }).isVisible()).toBe(true)
    expect(await page.getByRole('alert').isVisible()).toBe(false)
  })
})
