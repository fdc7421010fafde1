import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

/** Debian's Chromium (installed by scripts/ensure-deps.sh --test); playwright-core never downloads a browser. */
const CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required',
]

export interface TestBrowser {
  readonly context: BrowserContext
  newPage(): Promise<Page>
  close(): Promise<void>
}

/** Headless Chromium with a fresh profile directory, removed on close. */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'parla-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...ARGS, ...extraArgs],
    viewport: { width: 1100, height: 900 },
  })
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => undefined)
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/**
 * Installed before the page's scripts: records what the page hands to Web Audio (every buffer started: its
 * length and peak), so a test sees that decodable, non-silent audio reached the AudioContext; and keeps the
 * AudioContext, so a test can pause the page's clock.
 */
export const AUDIO_SPY = `(() => {
  const heard = { buffers: 0, samples: 0, peak: 0, rate: 0 }
  window.__heard = heard
  const start = AudioBufferSourceNode.prototype.start
  AudioBufferSourceNode.prototype.start = function (...args) {
    const b = this.buffer
    window.__audioContext = this.context
    if (b) {
      const data = b.getChannelData(0)
      let peak = 0
      for (let i = 0; i < data.length; i++) peak = Math.max(peak, Math.abs(data[i]))
      heard.buffers++; heard.samples += b.length; heard.peak = Math.max(heard.peak, peak); heard.rate = b.sampleRate
    }
    return start.apply(this, args)
  }
})()`

/** Chromium's fake microphone playing `wav` once (then silence), granted without a prompt. */
export const fakeMicrophone = (wav: string): string[] =>
  ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}%noloop`]

/**
 * Installed before the page's scripts: counts the audio frames the microphone has delivered since the page's
 * last getUserMedia, read from the page's own track, so a test stops a recording once the whole file is in
 * (however slowly a busy machine feeds it) instead of after a guessed number of seconds. `sessions` counts
 * getUserMedia calls, so a wait cannot be satisfied by the frames of a recording made before it.
 */
export const MIC_SPY = `(() => {
  const mic = { frames: 0, rate: 0, sessions: 0 }
  window.__mic = mic
  const devices = navigator.mediaDevices
  const getUserMedia = devices.getUserMedia.bind(devices)
  devices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints)
    mic.frames = 0
    mic.sessions++
    const reader = new MediaStreamTrackProcessor({ track: stream.getAudioTracks()[0] }).readable.getReader()
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        mic.frames += value.numberOfFrames
        mic.rate = value.sampleRate
        value.close()
      }
    })()
    return stream
  }
})()`
