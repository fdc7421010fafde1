import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb } from '../scripts/build-web.js'
import { toWav } from './support/asr-speech.js'
import { generateBuiltinSamples } from '../src/services/models/builtin-samples.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { SENTENCES, ttsAll, withPauses, type Arranged } from './helpers/asr-audio.js'
import { AUDIO_SPY, launchBrowser, type TestBrowser } from './helpers/browser.js'
import { shiftedReference } from './helpers/clone.js'
import { createModel } from './helpers/models.js'

// The functions handed to page.evaluate run in the browser; these names are only declared for them.
declare const window: any, document: any, MutationObserver: any, createImageBitmap: any, OffscreenCanvas: any, requestAnimationFrame: any

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
  // The built-in voices as \`parla serve\` lists them; one sample made, for the picker's sample button.
  const builtins = await seedBuiltinVoices(server.deps.models.repo, server.deps.keys, server.deps.speech.engines)
  const { db, blobs, speech } = server.deps
  await generateBuiltinSamples({ db, blobs, engines: speech.engines, shared: false }, builtins.filter((v) => v.modelId === 'festival-slt'), new AbortController().signal)
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
    await page.locator('#key-state', { hasText: /^Key accepted\.$/ }).waitFor({ timeout: SLOW })
    const words = 'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.'
    await page.getByLabel('Text', { exact: true }).fill(words)
    // Every change of the highlighted word is recorded.
    await page.evaluate(() => {
      const seen: number[] = []
      window.__seen = seen
      new MutationObserver(() => {
        const now = document.querySelector('#speak-out .word.now')
        const i = now ? Number(now.dataset.i) : -1
        if (i >= 0 && seen.at(-1) !== i) seen.push(i)
      }).observe(document.getElementById('speak-out')!, { subtree: true, attributes: true, attributeFilter: ['class'] })
    })
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await page.waitForFunction(() => window.__seen.length >= 3, undefined, { timeout: SLOW })
    const heard = await page.evaluate(() => window.__heard as Heard)
    expect(heard.buffers).toBeGreaterThan(0)
    expect(heard.rate).toBe(44_100)
    expect(heard.peak).toBeGreaterThan(0.05)
    // With the page's audio clock paused on a lit word, the screenshot shows the highlight however busy the machine.
    await freezeOnLitWord(page)
    await page.screenshot({ path: join(SHOTS, 'speak.png'), fullPage: true })
    await checkScreenshot(page)
    await page.evaluate(() => window.__audioContext.resume())
    await expect.poll(() => page.locator('#speak-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
    const seen = await page.evaluate(() => window.__seen as number[])
    expect(seen.length).toBeGreaterThanOrEqual(3)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(await page.locator('#speak-out .word').count()).toBe(16)
    // The download is the same request in the chosen format (mp3 by default), encoded by the server.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download mp3' }).click()])
    const bytes = await readFile((await download.path())!)
    expect(download.suggestedFilename()).toBe('parla-speech.mp3')
    expect(bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)).toBe(true)
    expect(bytes.length).toBeGreaterThan(5000)
  })

  it('first load transfers at most 300 KB, its script and stylesheet compressed, and nothing fails', async () => {
    const fresh = await browser.newPage()
    const sizes: Promise<{ url: string; bytes: number; encoding: string | undefined }>[] = []
    fresh.on('requestfinished', (r) => sizes.push((async () => {
      const [size, headers] = [await r.sizes(), await (await r.response())!.allHeaders()]
      return { url: r.url(), bytes: size.responseBodySize + size.responseHeadersSize, encoding: headers['content-encoding'] }
    })()))
    // Nothing fails while loading (the browser's own /favicon.ico request was a 401 before the page named an icon).
    const errors: string[] = []
    fresh.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    await fresh.goto(server.url, { waitUntil: 'networkidle' })
    const loaded = await Promise.all(sizes)
    expect(errors).toEqual([])
    await fresh.close()
    // The page itself, and with a key kept from before, the voice list it fetches at once: all of it counts.
    const assets = loaded.filter((l) => ['/', '/main.js', '/style.css'].includes(new URL(l.url).pathname))
    expect(assets).toHaveLength(3)
    for (const l of assets) expect(l.encoding, l.url).toMatch(/^(br|gzip)$/)
    expect(loaded.reduce((total, l) => total + l.bytes, 0)).toBeLessThanOrEqual(300 * 1024)
  })

  it('works on a phone-sized screen and by keyboard', async () => {
    const phone = await browser.newPage()
    await phone.setViewportSize({ width: 375, height: 740 })
    await phone.goto(server.url)
    // Nothing wider than the screen: no sideways scrolling.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    for (const name of ['Speak', 'Save key']) {
      const box = (await phone.getByRole('button', { name, exact: true }).boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(375)
    }
    // Tabs follow the ARIA pattern: arrow keys move the selection and the focus.
    await phone.getByRole('tab', { name: 'Speak' }).focus()
    await phone.keyboard.press('ArrowRight')
    expect(await phone.getByRole('tab', { name: 'Clone' }).getAttribute('aria-selected')).toBe('true')
    expect(await phone.getByLabel('Reference audio').isVisible()).toBe(true)
    expect(await phone.getByLabel('Text', { exact: true }).isVisible()).toBe(false)
    // Every form control has a label.
    const unlabelled = await phone.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
      .filter((e: any) => !e.labels?.length && !e.getAttribute('aria-label')).map((e: any) => e.id))
    expect(unlabelled).toEqual([])
    await phone.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true })
    await phone.close()
  })

  it('lists the built-in voices, plays a sample, and speaks with the chosen voice', async () => {
    await page.getByLabel('Voice', { exact: true }).fill('slt')
    await page.getByLabel('Voice list').selectOption('festival-slt')
    await page.getByRole('button', { name: 'Play sample' }).click()
    await page.waitForFunction(() => {
      const a = document.querySelector('#sample-audio')!
      return a.currentTime > 0 && a.duration > 1
    }, undefined, { timeout: SLOW })
    const before = await page.evaluate(() => (window.__heard as Heard).samples)
    await page.getByLabel('Text', { exact: true }).fill('A short test.')
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await expect.poll(() => page.locator('#speak-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
    expect(await page.evaluate(() => (window.__heard as Heard).samples)).toBeGreaterThan(before)
  })

  it('the SSML example speaks, its words lit without the markup', async () => {
    await page.getByText('Expression tags').click()
    await page.getByRole('button', { name: 'SSML example' }).click()
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toMatch(/^<speak>/)
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await expect.poll(() => page.locator('#speak-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
    const words = await page.locator('#speak-out .word').allTextContents()
    expect(words.join(' ')).toContain('Consortium')
    expect(words.join(' ')).not.toMatch(/[<>]|speak|prosody/)
    await page.getByText('Expression tags').click()
  })

  it('an empty text and a wrong key each say what to fix', async () => {
    await page.getByLabel('Text', { exact: true }).fill('   ')
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: 'Type some text to speak' }).waitFor({ timeout: SLOW })
    const bad = await openWithKey('not-a-real-key')
    await bad.getByRole('alert').filter({ hasText: 'The API key was not accepted' }).waitFor({ timeout: SLOW })
    // Speaking with it says the same; the message is cleared first so the second one is seen to come from Speak.
    await bad.evaluate(() => (document.querySelector('[role=alert]').textContent = ''))
    await bad.getByRole('button', { name: 'Speak', exact: true }).click()
    await bad.getByRole('alert').filter({ hasText: 'The API key was not accepted' }).waitFor({ timeout: SLOW })
    expect(await bad.getByRole('alert').isVisible()).toBe(true)
    await bad.screenshot({ path: join(SHOTS, 'bad-key.png') })
    await bad.close()
  })
})

/** Suspends the page's AudioContext at a moment a word is lit (retrying if it stopped between two words). */
async function freezeOnLitWord(p: Page): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    await p.waitForFunction(() => document.querySelector('#speak-out .word.now'), undefined, { timeout: SLOW })
    const lit = await p.evaluate(async () => {
      await window.__audioContext.suspend()
      // Two frames: the page redraws with the clock stopped.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      if (document.querySelector('#speak-out .word.now')) return true
      await window.__audioContext.resume()
      return false
    })
    if (lit) return
  }
  throw new Error('no word stayed lit with the audio clock paused')
}

/**
 * The screenshot shows what matters: the words with one lit up (the highlight colour inside the words' box)
 * and a drawn waveform (its blue inside the canvas), read back from the PNG's pixels by the browser.
 */
async function checkScreenshot(p: Page): Promise<void> {
  const shot = await p.screenshot({ fullPage: true })
  const words = await p.locator('#speak-out .words').boundingBox()
  const wave = await p.locator('#speak-out canvas').boundingBox()
  const counts = await p.evaluate(async ({ png, boxes }) => {
    const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${png}`)).blob())
    const canvas = new OffscreenCanvas(image.width, image.height)
    const g = canvas.getContext('2d')!
    g.drawImage(image, 0, 0)
    const count = (box: { x: number; y: number; width: number; height: number }, rgb: number[]) => {
      const data = g.getImageData(box.x, box.y, box.width, box.height).data
      let n = 0
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - rgb[0]!) + Math.abs(data[i + 1]! - rgb[1]!) + Math.abs(data[i + 2]! - rgb[2]!) < 30) n++
      }
      return n
    }
    return { highlight: count(boxes.words, [0xff, 0xd5, 0x4a]), wave: count(boxes.wave, [0x1a, 0x56, 0xa8]) }
  }, { png: shot.toString('base64'), boxes: { words: words!, wave: wave! } })
  expect(counts.highlight).toBeGreaterThan(50)
  expect(counts.wave).toBeGreaterThan(500)
}

describe('playground: clone, transcribe, voices', { timeout: SLOW }, () => {
  let reference: { wav: Uint8Array; text: string }
  let speechFile: Arranged

  beforeAll(async () => {
    reference = await shiftedReference(3, 0.95)
    const texts = [SENTENCES[3]!, SENTENCES[10]!, SENTENCES[14]!]
    speechFile = withPauses(await ttsAll(server, texts), texts)
    page = await openWithKey(server.alice)
    await page.getByText('Key accepted.').waitFor({ timeout: SLOW })
  }, SLOW)

  it('clones from an uploaded file: speaks with it at once, saves it, training reaches trained with a quality report', async () => {
    await page.getByRole('tab', { name: 'Clone' }).click()
    await page.getByLabel('Reference audio').setInputFiles({ name: 'my-voice.wav', mimeType: 'audio/wav', buffer: Buffer.from(reference.wav) })
    await page.getByLabel('What the reference says').fill(reference.text)
    await page.getByLabel('Text to speak with this voice').fill('Cloned speech, word by word.')
    const before = await page.evaluate(() => (window.__heard as Heard).samples)
    await page.getByRole('button', { name: 'Speak with it' }).click()
    await expect.poll(() => page.locator('#clone-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
    expect(await page.locator('#clone-out .word').count()).toBe(5)
    expect(await page.evaluate(() => (window.__heard as Heard).samples)).toBeGreaterThan(before)
    await page.getByLabel('Title').fill('Playground voice')
    await page.getByRole('button', { name: 'Save voice' }).click()
    await page.waitForFunction(() => document.getElementById('clone-state')!.dataset.state, undefined, { timeout: SLOW })
    expect(await page.locator('#clone-state').getAttribute('data-state')).toBe('trained')
    const row = page.locator('#clone-quality tbody tr')
    expect(await row.count()).toBe(1)
    expect(await row.locator('td').nth(2).textContent()).toBe('passed')
    await page.screenshot({ path: join(SHOTS, 'clone.png'), fullPage: true })
    // The new voice is in the Speak panel's list, and speaks.
    await page.getByRole('tab', { name: 'Speak' }).click()
    await page.getByLabel('Voice', { exact: true }).fill('Playground')
    const option = page.getByLabel('Voice list').locator('option', { hasText: 'Playground voice' })
    await page.getByLabel('Voice list').selectOption((await option.getAttribute('value'))!)
    await page.getByLabel('Text', { exact: true }).fill('Now with the saved voice.')
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await expect.poll(() => page.locator('#speak-out .words').textContent(), { timeout: SLOW }).toContain('saved')
    await expect.poll(() => page.locator('#speak-out [role=status]').textContent(), { timeout: SLOW }).toMatch(/^All received: /)
  })

  it('transcribes an uploaded file, shows its segments, and a segment press plays that part', async () => {
    await page.getByRole('tab', { name: 'Transcribe' }).click()
    await page.getByLabel('Audio file').setInputFiles({ name: 'three.wav', mimeType: 'audio/wav', buffer: Buffer.from(toWav(speechFile.samples, speechFile.sampleRate)) })
    await page.getByRole('button', { name: 'Transcribe', exact: true }).click()
    await expect.poll(() => page.locator('#asr-segments li').count(), { timeout: SLOW }).toBeGreaterThanOrEqual(3)
    expect((await page.locator('#asr-text').textContent())!.toLowerCase()).toContain('forgot his keys')
    const second = page.locator('#asr-segments button').nth(1)
    // Where playback starts is taken from the 'playing' event, not by sampling (a busy machine samples late).
    await page.evaluate(() => {
      const a = document.querySelector('#asr-audio')
      a.addEventListener('playing', () => (window.__playedAt = a.currentTime), { once: true })
    })
    await second.click()
    const played = await page.waitForFunction(() => window.__playedAt ?? null, undefined, { timeout: SLOW })
    const at = (await played.jsonValue()) as number
    const span = async (n: number) => [...(await page.locator('#asr-segments button').nth(n).getAttribute('aria-label'))!
      .matchAll(/(\d+):(\d+\.\d)/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
    const [start, end] = await span(1)
    expect(at).toBeGreaterThanOrEqual(start! - 0.1)
    expect(at).toBeLessThanOrEqual(end! + 0.1)
    // It stops by itself at the segment's end: not before it, and without playing on through the next segment
    // (however late a busy page sees its time update, it is not a whole segment late).
    await page.waitForFunction(() => document.querySelector('#asr-audio')!.paused, undefined, { timeout: SLOW })
    const stopped = await page.evaluate(() => document.querySelector('#asr-audio')!.currentTime)
    expect(stopped).toBeGreaterThanOrEqual(end! - 0.1)
    expect(stopped).toBeLessThan((await span(2))[1]!)
    await page.screenshot({ path: join(SHOTS, 'transcribe.png'), fullPage: true })
  })

  it('edits a voice (title, description, tags, visibility, cover) and deletes it after confirmation', async () => {
    const { _id: id } = await createModel(server, server.asAlice, { title: 'Voice to edit', voices: [reference.wav], texts: [reference.text] })
    // Bob's voice is public, yet not his to change: it is not offered here.
    await createModel(server, server.asBob, { title: 'Bob public voice', visibility: 'public' })
    await page.getByRole('tab', { name: 'Voices' }).click()
    await page.getByRole('button', { name: 'Edit Voice to edit' }).click()
    await page.getByLabel('Title').last().fill('Renamed voice')
    await page.getByLabel('Description').fill('Made in the playground')
    await page.getByLabel('Tags').fill('test, browser')
    await page.getByLabel('Visibility').selectOption('unlist')
    await page.getByLabel('Cover image').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } }) })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('button', { name: 'Edit Renamed voice' }).waitFor({ timeout: SLOW })
    expect(await page.getByText('Bob public voice').count()).toBe(0)
    const stored = (await server.app.inject({ url: `/model/${id}`, headers: server.asAlice })).json()
    expect(stored).toMatchObject({ title: 'Renamed voice', description: 'Made in the playground', tags: ['test', 'browser'], visibility: 'unlist' })
    expect(stored.cover_image).not.toBe('')
    await page.waitForFunction(() => document.querySelector('li.voice img.cover')?.naturalWidth === 64, undefined, { timeout: SLOW })
    await page.screenshot({ path: join(SHOTS, 'voices.png'), fullPage: true })
    // Keeping it first: the dialog's cancel leaves the voice.
    await page.getByRole('button', { name: 'Delete Renamed voice' }).click()
    await page.getByRole('button', { name: 'Keep it' }).click()
    expect((await server.app.inject({ url: `/model/${id}`, headers: server.asAlice })).statusCode).toBe(200)
    await page.getByRole('button', { name: 'Delete Renamed voice' }).click()
    expect(await page.getByRole('dialog').textContent()).toContain('cannot be undone')
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    await page.locator(`li.voice[data-id="${id}"]`).waitFor({ state: 'detached', timeout: SLOW })
    expect((await server.app.inject({ url: `/model/${id}`, headers: server.asAlice })).statusCode).toBe(404)
  })
})
