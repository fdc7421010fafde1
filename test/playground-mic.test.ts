// The playground's microphone buttons in a real browser: Chromium's fake capture device plays a WAV of real
// speech (festival's slt, shifted in pitch so it is a new speaker) as the microphone; the page records it with
// MediaRecorder (WebM/Opus) and the recording goes through the real API.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb } from '../scripts/build-web.js'
import { wer } from '../src/asr/wer.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { AUDIO_SPY, fakeMicrophone, launchBrowser, MIC_SPY, type TestBrowser } from './helpers/browser.js'
import { shiftedReference, type Reference } from './helpers/clone.js'

// The functions handed to page.evaluate run in the browser; these names are only declared for them.
declare const window: any, document: any

const SLOW = 120_000

let server: TestServer
let browser: TestBrowser
let dir: string
let reference: Reference
let page: Page

beforeAll(async () => {
  await buildWeb()
  server = await startTestServer()
  await server.listen()
  reference = await shiftedReference(3, 0.95)
  dir = await mkdtemp(join(tmpdir(), 'parla-mic-'))
  const wav = join(dir, 'speaker.wav')
  await writeFile(wav, reference.wav)
  browser = await launchBrowser(fakeMicrophone(wav))
  page = await browser.newPage()
  await page.addInitScript(AUDIO_SPY)
  await page.addInitScript(MIC_SPY)
  await page.goto(server.url)
  await page.getByLabel('API key').fill(server.alice)
  await page.getByRole('button', { name: 'Save key' }).click()
  await page.getByText('Key accepted.').waitFor({ timeout: SLOW })
}, SLOW)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** Records with the visible panel's button until the microphone has delivered the whole file, then stops. */
async function recordWholeFile(p: Page): Promise<void> {
  const seconds = reference.audio.samples.length / reference.audio.sampleRate
  const session = (await p.evaluate(() => window.__mic.sessions as number)) + 1
  await p.getByRole('button', { name: 'Record from microphone' }).click()
  await p.waitForFunction(
    ([s, n]) => window.__mic.sessions === n && window.__mic.rate > 0 && window.__mic.frames / window.__mic.rate >= s + 0.5,
    [seconds, session] as const,
    { timeout: SLOW },
  )
  await p.getByRole('button', { name: /^Stop recording/ }).click()
  await p.getByRole('button', { name: 'Record from microphone' }).waitFor({ timeout: SLOW })
}

describe('playground: the microphone', { timeout: SLOW }, () => {
  it('Clone: records a reference, speaks with it through references, saves it and training reaches trained', async () => {
    await page.getByRole('tab', { name: 'Clone' }).click()
    await recordWholeFile(page)
    // The recording is offered for listening before it is used.
    await page.waitForFunction(() => document.getElementById('clone-preview').src.startsWith('blob:'), undefined, { timeout: SLOW })
    expect(await page.locator('#clone-preview').isVisible()).toBe(true)
    await page.getByLabel('What the reference says').fill(reference.text)
    await page.getByLabel('Text to speak with this voice').fill('Spoken in the recorded voice.')
    const before = await page.evaluate(() => window.__heard.samples as number)
    await page.getByRole('button', { name: 'Speak with it' }).click()
    await page.locator('#clone-out [role=status]', { hasText: /^All received: / }).waitFor({ timeout: SLOW })
    expect(await page.locator('#clone-out .word').count()).toBe(5)
    expect(await page.evaluate(() => window.__heard.samples as number)).toBeGreaterThan(before)
    expect(await page.getByRole('alert').isVisible()).toBe(false)

    await page.getByLabel('Title').fill('Microphone voice')
    await page.getByRole('button', { name: 'Save voice' }).click()
    await page.waitForFunction(() => document.getElementById('clone-state').dataset.state, undefined, { timeout: SLOW })
    expect(await page.locator('#clone-state').textContent()).toContain('trained')
    expect(await page.locator('#clone-state').getAttribute('data-state')).toBe('trained')
    const cells = page.locator('#clone-quality tbody tr td')
    expect(await cells.nth(2).textContent()).toBe('passed')
    // The sample's duration is the recording's: the whole file was in it.
    const recorded = Number.parseFloat((await cells.nth(1).textContent())!)
    expect(recorded).toBeGreaterThanOrEqual(Math.floor(reference.audio.samples.length / reference.audio.sampleRate))
  })

  it('Transcribe: records speech and transcribes what was said', async () => {
    await page.getByRole('tab', { name: 'Transcribe' }).click()
    await recordWholeFile(page)
    await page.getByRole('button', { name: 'Transcribe', exact: true }).click()
    await page.locator('#asr-state', { hasText: 'Transcribed.' }).waitFor({ timeout: SLOW })
    const heard = (await page.locator('#asr-text').textContent())!
    expect(wer(reference.text, heard).wer, heard).toBeLessThan(0.5)
    expect(await page.locator('#asr-segments li').count()).toBeGreaterThanOrEqual(1)
  })
})
