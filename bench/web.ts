/**
 * `npm run bench:web`: the playground as a person meets it, in Debian's headless Chromium against a real server.
 *
 * - Page weight: every byte the first load of `/` transfers (headers and compressed bodies, from the browser's
 *   own accounting), against the 300 KB.
 * - Speak → first audio: from the Speak button's click (the page's clock) to the moment the first buffer of
 *   speech is due to sound (its `AudioBufferSourceNode.start`, plus how far ahead it was scheduled), with the
 *   default voice and settings; p50/p90/max over BENCH_RUNS (default 20) sentences, against the 1 s.
 *
 * The server is a child process (bench/server.ts) with its engines warmed, as after `parla serve` has started.
 */
import { cpus, loadavg } from 'node:os'
import type { Page } from 'playwright-core'
import { buildWeb } from '../scripts/build-web.js'
import { launchBrowser } from '../test/helpers/browser.js'
import { AGENT_REPLIES } from './live-replies.js'
import { startBenchServer } from './server.js'
import { percentile } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const WEIGHT_TARGET_KB = 300
const FIRST_AUDIO_TARGET_MS = 1000

// Runs in the page: when each Speak click happened, and when the first speech after it is due to sound.
declare const window: { __t: { click: number; sound: number } }
const FIRST_AUDIO_SPY = `(() => {
  const t = { click: 0, sound: 0 }
  window.__t = t
  document.addEventListener('click', (e) => {
    if (e.target.id === 'speak-go') { t.click = performance.now(); t.sound = 0 }
  }, true)
  const start = AudioBufferSourceNode.prototype.start
  AudioBufferSourceNode.prototype.start = function (when = 0, ...rest) {
    if (t.click && !t.sound) t.sound = performance.now() + Math.max(0, when - this.context.currentTime) * 1000
    return start.call(this, when, ...rest)
  }
})()`

async function pageWeight(page: Page, url: string): Promise<{ bytes: number; requests: number }> {
  const sizes: Promise<number>[] = []
  page.on('requestfinished', (r) => sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)))
  await page.goto(url, { waitUntil: 'networkidle' })
  const all = await Promise.all(sizes)
  return { bytes: all.reduce((a, b) => a + b, 0), requests: all.length }
}

async function firstAudio(page: Page, key: string): Promise<number[]> {
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Save key' }).click()
  await page.getByText('Key accepted.').waitFor()
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    await page.getByLabel('Text', { exact: true }).fill(AGENT_REPLIES[i % AGENT_REPLIES.length]!)
    await page.getByRole('button', { name: 'Speak', exact: true }).click()
    await page.waitForFunction(() => window.__t.sound > 0, undefined, { timeout: 60_000 })
    times.push(await page.evaluate(() => window.__t.sound - window.__t.click))
    await page.locator('#speak-out [role=status]', { hasText: /^All received: / }).waitFor({ timeout: 60_000 })
  }
  return times
}

async function main(): Promise<void> {
  await buildWeb()
  const server = await startBenchServer()
  const browser = await launchBrowser()
  try {
    const load = loadavg().map((x) => x.toFixed(2)).join(' / ')
    console.log(`# bench:web — ${cpus().length} cores, load average ${load} at start, ${RUNS} runs`)
    const fresh = await browser.newPage()
    const weight = await pageWeight(fresh, server.url)
    const kb = weight.bytes / 1024
    console.log(`page weight, first load: ${kb.toFixed(1)} KB in ${weight.requests} requests ` +
      `(target ≤ ${WEIGHT_TARGET_KB} KB: ${kb <= WEIGHT_TARGET_KB ? 'met' : 'MISSED'})`)
    await fresh.addInitScript(FIRST_AUDIO_SPY)
    await fresh.reload()
    const times = await firstAudio(fresh, server.key)
    const [p50, p90, max] = [percentile(times, 50), percentile(times, 90), Math.max(...times)]
    console.log(`Speak → first audio: p50 ${p50.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms, max ${max.toFixed(0)} ms ` +
      `(target < ${FIRST_AUDIO_TARGET_MS} ms: ${p90 < FIRST_AUDIO_TARGET_MS ? 'met at p90' : 'MISSED at p90'})`)
    console.log(`load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`)
  } finally {
    await browser.close()
    await server.stop()
  }
}

await main()
