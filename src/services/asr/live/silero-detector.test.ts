import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLogs } from '../../../../test/support/log-capture.js'
import { createFakeAsrEngine } from '../../../../test/support/fake-asr-engine.js'
import { VAD_FRAME } from '../../../asr/frame-vad.js'
import { readPcm16Wav } from '../../../audio/wav-header.js'
import { concatSamples, float32ToInt16 } from '../../../audio/signal.js'
import { SileroVad } from '../../../engines/neural/silero-vad.js'
import { createConcurrencyGate } from '../concurrency-gate.js'
import { FVAD_SOURCE } from './fvad-detector.js'
import { LiveSession } from './session.js'
import { sileroSource } from './silero-detector.js'
import { DEFAULT_TURN, TurnDetector, type TurnSettings } from './turn-detector.js'
import { openVoiceDetection, type LiveLog, type VoiceDetectorSource } from './voice-detector.js'

const SPEECH = new URL('../../../../test/fixtures/real-speech/', import.meta.url)
const SILERO = fileURLToPath(new URL('../../../../test/fixtures/models/silero-vad/silero_vad.onnx', import.meta.url))
const RATE = 16_000

const recording = (name: string): Float32Array => {
  const wav = readPcm16Wav(readFileSync(new URL(name, SPEECH)))
  if (typeof wav === 'string') throw new Error(wav)
  return wav.samples
}
const silence = (sec: number) => new Float32Array(Math.round(sec * RATE))

/** Three people's recordings with 1.2 s of silence around each, and where each recording lies (seconds). */
function conversation(): { pcm: Int16Array; clips: { from: number; to: number }[] } {
  const parts: Float32Array[] = [silence(0.8)]
  const clips: { from: number; to: number }[] = []
  let at = 0.8
  for (const name of ['librivox-0870.wav', 'goforward.wav', 'cards-005.wav']) {
    const clip = recording(name)
    clips.push({ from: at, to: at + clip.length / RATE })
    at += clip.length / RATE + 1.2
    parts.push(clip, silence(1.2))
  }
  return { pcm: float32ToInt16(concatSamples(parts)), clips }
}

/** The turns a detector finds in `pcm` sent in 20 ms frames: when the turn detector said start and end. */
async function turnsOf(source: VoiceDetectorSource, pcm: Int16Array, settings: TurnSettings = DEFAULT_TURN) {
  const detector = await source.open(settings)
  const turns = new TurnDetector(settings)
  const found: { start: number; end?: number }[] = []
  let frame = 0
  try {
    for (let at = 0; at < pcm.length; at += 2 * VAD_FRAME) {
      for (const voiced of await detector.detect(pcm.subarray(at, Math.min(pcm.length, at + 2 * VAD_FRAME)))) {
        const step = turns.push(voiced)
        const sec = ++frame * VAD_FRAME / RATE
        if (step === 'start') found.push({ start: sec })
        if (step === 'end') found.at(-1)!.end = sec
      }
    }
  } finally {
    detector.close()
  }
  return found
}

/** A live session on the conversation with these detectors (its turns recognised by a fake engine): its events' types. */
async function runSession(detectors: VoiceDetectorSource[], log: LiveLog): Promise<string[]> {
  const { pcm } = conversation()
  const gate = createConcurrencyGate(1)
  const session = new LiveSession({
    engine: createFakeAsrEngine(), hold: (signal) => gate.hold(signal), inputRate: RATE, language: 'en',
    turns: DEFAULT_TURN, maxBacklogSec: 60, detectors, log,
  })
  const events: string[] = []
  const done = (async () => {
    for await (const e of session.events()) events.push(e.type)
  })()
  for (let at = 0; at < pcm.length; at += 480) session.append(new Uint8Array(pcm.buffer, at * 2, Math.min(480, pcm.length - at) * 2))
  session.end()
  await done
  return events
}

let dir: string
let installed: SileroVad
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-silero-live-'))
  await copyFile(SILERO, join(dir, 'silero_vad.onnx'))
  installed = new SileroVad({ modelsDir: dir })
})
afterAll(async () => {
  installed.close()
  await rm(dir, { recursive: true, force: true })
})

describe('Silero VAD for live sessions', () => {
  it('finds each turn of a real recording with pauses: it starts in the speech and ends in the pause after it, as libfvad\'s do', async () => {
    const { pcm, clips } = conversation()
    const silero = await turnsOf(sileroSource(installed), pcm)
    const fvad = await turnsOf(FVAD_SOURCE, pcm)
    for (const turns of [silero, fvad]) {
      expect(turns).toHaveLength(3)
      turns.forEach((turn, i) => {
        expect(turn.start).toBeGreaterThan(clips[i]!.from)
        expect(turn.start).toBeLessThan(clips[i]!.to)
        // Ended after its recording's speech and before the next one began (the last: before the audio ends).
        expect(turn.end).toBeGreaterThan(turn.start)
        expect(turn.end).toBeLessThan(clips[i + 1]?.from ?? pcm.length / RATE + 0.01)
      })
    }
  })

  it('starts no turn on a burst of noise that libfvad takes for speech', async () => {
    let seed = 1
    const noise = new Float32Array(RATE * 1.5).map(() => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.2)
    const pcm = float32ToInt16(concatSamples([silence(0.5), noise, silence(1)]))
    expect(await turnsOf(FVAD_SOURCE, pcm)).toHaveLength(1)
    expect(await turnsOf(sileroSource(installed), pcm)).toHaveLength(0)
  })

  it('takes the session\'s silence duration as libfvad does: pauses shorter than it do not end the turn', async () => {
    const { pcm } = conversation()
    const patient = { ...DEFAULT_TURN, silenceMs: 3000 }
    expect(await turnsOf(sileroSource(installed), pcm, patient)).toHaveLength(1)
    expect(await turnsOf(FVAD_SOURCE, pcm, patient)).toHaveLength(1)
  })

  it('is what a session uses when the model is installed, and its start log says so', async () => {
    const { logger, lines } = captureLogs()
    const events = await runSession([sileroSource(installed), FVAD_SOURCE], logger)
    expect(events.filter((e) => e === 'speech_started')).toHaveLength(3)
    expect(lines.find((l) => l.msg === 'live transcription session started')).toMatchObject({ vad: 'silero-vad', threshold: 0.5, silenceMs: 500, prefixPaddingMs: 300 })
  })

  it('leaves sessions on libfvad when no model is installed, without a warning', async () => {
    const empty = new SileroVad({ modelsDir: join(dir, 'none') })
    const { logger, lines } = captureLogs()
    try {
      const events = await runSession([sileroSource(empty), FVAD_SOURCE], logger)
      expect(events.filter((e) => e === 'speech_started')).toHaveLength(3)
      expect(lines.find((l) => l.msg === 'live transcription session started')).toMatchObject({
        vad: 'libfvad', vadSkipped: [{ vad: 'silero-vad', reason: expect.stringMatching(/no Silero VAD model/) }],
      })
      expect(lines.filter((l) => l.level >= 40)).toEqual([])
    } finally {
      empty.close()
    }
  })

  it('falls back to libfvad with a log line when the installed model is broken, and reports it when the folder is scanned', async () => {
    const brokenDir = await mkdtemp(join(tmpdir(), 'parla-silero-broken-'))
    await writeFile(join(brokenDir, 'silero_vad.onnx'), readFileSync(SILERO).subarray(0, 100_000))
    const scan = captureLogs()
    const broken = new SileroVad({ modelsDir: brokenDir, logger: scan.logger })
    const { logger, lines } = captureLogs()
    try {
      await broken.report()
      expect(scan.lines).toMatchObject([{ level: 40, msg: expect.stringMatching(/Silero VAD model cannot be used; live transcription uses libfvad/), reason: expect.stringMatching(/silero_vad\.onnx is broken/) }])
      const detection = await openVoiceDetection([sileroSource(broken), FVAD_SOURCE], DEFAULT_TURN, logger)
      expect(detection.name).toBe('libfvad')
      expect(lines).toMatchObject([{ level: 40, vad: 'silero-vad', fallback: 'libfvad', reason: expect.stringMatching(/broken/) }])
      detection.close()
    } finally {
      broken.close()
      await rm(brokenDir, { recursive: true, force: true })
    }
  })

  it('goes on with libfvad, saying so, when the Silero process ends during a session', async () => {
    const { logger, lines } = captureLogs()
    const { pcm } = conversation()
    const gate = createConcurrencyGate(1)
    const session = new LiveSession({
      engine: createFakeAsrEngine(), hold: (signal) => gate.hold(signal), inputRate: RATE, language: 'en',
      turns: DEFAULT_TURN, maxBacklogSec: 60, detectors: [sileroSource(installed), FVAD_SOURCE], log: logger,
    })
    const events: string[] = []
    let heardFirst!: () => void
    const firstTurn = new Promise<void>((resolve) => (heardFirst = resolve))
    const done = (async () => {
      for await (const e of session.events()) {
        events.push(e.type)
        if (e.type === 'speech_started') heardFirst()
      }
    })()
    const send = (from: number, to: number) => {
      for (let at = from; at < to; at += 480) session.append(new Uint8Array(pcm.buffer, at * 2, Math.min(480, to - at) * 2))
    }
    const half = Math.floor(pcm.length / 2)
    send(0, half)
    await firstTurn
    process.kill(installed.pid!, 'SIGKILL')
    send(half, pcm.length)
    session.end()
    await done
    expect(events.filter((e) => e === 'speech_started')).toHaveLength(3)
    expect(lines.filter((l) => l.level >= 40)).toMatchObject([{ vad: 'silero-vad', fallback: 'libfvad', msg: expect.stringMatching(/failed during a live session; it falls back/) }])
  })

  it('falls back to libfvad for the rest of a session when the detector fails during it, judging the frames it failed on', async () => {
    const failing: VoiceDetectorSource = {
      name: 'failing',
      open: async () => ({ detect: () => Promise.reject(new Error('the process ended')), close: () => {} }),
    }
    const { logger, lines } = captureLogs()
    const { pcm, clips } = conversation()
    const turns = await turnsOf({ name: 'chain', open: (s) => openVoiceDetection([failing, FVAD_SOURCE], s, logger) }, pcm)
    expect(turns).toHaveLength(clips.length)
    expect(lines).toMatchObject([{ level: 40, vad: 'failing', fallback: 'libfvad', reason: 'the process ended' }])
  })
})
