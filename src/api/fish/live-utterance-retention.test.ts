import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { WebSocket } from 'ws'
import { describe, expect, it } from 'vitest'
import type { EncoderSession } from '../../audio/types.js'
import type { PreparedSpeech, TtsService } from '../../services/tts/service.js'
import { plainTtsParams } from '../../services/tts/params.js'
import type { Principal } from '../../principal.js'
import { createAdmission } from '../../services/admission/admission.js'
import { Utterance } from './live-utterance.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Any text plans to one chunk that renders as a block of silence. */
const tts: TtsService = {
  async prepare(params) {
    const encoder: EncoderSession = { push: (samples) => new Uint8Array(samples.length * 2), end: () => new Uint8Array(2048) }
    return {
      chunks: params.text ? [{ text: params.text }] : [],
      outputRate: 16_000,
      newEncoderSession: () => encoder,
      async *render() {
        yield { type: 'audio', samples: new Float32Array(1600) }
      },
    } as unknown as PreparedSpeech
  },
}

/** Runs one utterance to its `finish` on a socket that stays open; returns a weak handle on it. */
async function finishedUtterance(closed: AbortSignal): Promise<WeakRef<Utterance>> {
  const frames: string[] = []
  const socket = { bufferedAmount: 0, readyState: 1, OPEN: 1 } as unknown as WebSocket
  const ctx = {
    tts,
    admission: createAdmission({ limits: () => ({ streams: 1, starting: 1 }), queueLength: 0, waitMs: 0 }),
    principal: {} as Principal,
    socket,
    send: (frame: { event: string }) => void frames.push(frame.event),
    failed: (err: unknown) => {
      throw err
    },
  }
  const utterance = new Utterance(plainTtsParams('', 'pcm'), ctx, closed)
  utterance.speak('hello there')
  await new Promise<void>((resolve) => utterance.stop(resolve))
  while (utterance.busy) await new Promise((resolve) => setTimeout(resolve, 1))
  expect(frames.at(-1)).toBe('finish')
  return new WeakRef(utterance)
}

describe('a finished utterance on an open live socket', () => {
  it('is released (signal, listeners, encoder) while its socket stays open', async () => {
    // The socket's signal: open (never aborted) for the whole test, as on a long conversation.
    const socketOpen = new AbortController()
    const refs: WeakRef<Utterance>[] = []
    for (let i = 0; i < 3; i++) refs.push(await finishedUtterance(socketOpen.signal))
    // WeakRef targets are kept until the end of the current job: collect across a few turns.
    for (let i = 0; i < 5 && refs.some((r) => r.deref()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      gc()
    }
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true])
    expect(socketOpen.signal.aborted).toBe(false)
  })
})
