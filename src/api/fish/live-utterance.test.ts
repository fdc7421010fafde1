import type { WebSocket } from 'ws'
import { describe, expect, it } from 'vitest'
import type { EncoderSession } from '../../audio/types.js'
import type { PreparedSpeech, TtsService } from '../../services/tts/service.js'
import { plainTtsParams } from '../../services/tts/params.js'
import type { Principal } from '../../principal.js'
import { createAdmission } from '../../services/admission/admission.js'
import { Utterance } from './live-utterance.js'

/** A service that plans any text to one chunk and renders it as one block of silence. */
const tts: TtsService = {
  async prepare(params) {
    const encoder: EncoderSession = {
      push: (samples) => new Uint8Array(samples.length * 2),
      end: () => new Uint8Array(2048),
    }
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

describe('Utterance', () => {
  it('stays busy after stop until finish is sent, so a draining server waits for the finish', async () => {
    const frames: { event: string; busy: boolean }[] = []
    let utterance: Utterance | undefined
    const socket = { bufferedAmount: 0, readyState: 1, OPEN: 1 } as unknown as WebSocket
    const admission = createAdmission({ limits: () => ({ streams: 1, starting: 1 }), queueLength: 0, waitMs: 0 })
    const ctx = {
      tts,
      admission,
      principal: {} as Principal,
      socket,
      send: (frame: { event: string }) => void frames.push({ event: frame.event, busy: utterance!.busy }),
      failed: (err: unknown) => {
        throw err
      },
    }
    utterance = new Utterance(plainTtsParams('', 'pcm'), ctx, new AbortController().signal)
    utterance.speak('hello there')
    await new Promise<void>((resolve) => utterance!.stop(resolve))
    // The unit's audio, then the encoder's tail after the last unit, then finish: busy at every one of them.
    expect(frames.map((f) => f.event)).toEqual(['audio', 'audio', 'finish'])
    expect(frames.map((f) => f.busy)).toEqual([true, true, true])
    await expect.poll(() => utterance!.busy).toBe(false)
    // Finished: the socket no longer counts as a speaking stream.
    expect(admission.snapshot().running.live).toBe(0)
  })

  it("plans the first text while the start's voice check runs, and sends no audio unless the check passes", async () => {
    for (const voiceKnown of [true, false]) {
      const calls: string[] = []
      let settleCheck!: () => void
      const checking = new Promise<void>((resolve) => (settleCheck = resolve))
      const gated: TtsService = {
        async prepare(params, principal, signal) {
          calls.push(params.text)
          if (params.text === '') {
            await checking
            if (!voiceKnown) throw new Error('voice model not found')
          }
          return tts.prepare(params, principal, signal)
        },
      }
      const events: string[] = []
      const socket = { bufferedAmount: 0, readyState: 1, OPEN: 1 } as unknown as WebSocket
      const admission = createAdmission({ limits: () => ({ streams: 1, starting: 1 }), queueLength: 0, waitMs: 0 })
      const failed = new Promise<unknown>((resolve) => {
        const utterance = new Utterance(plainTtsParams('', 'pcm'), {
          tts: gated, admission, principal: {} as Principal, socket,
          send: (frame: { event: string }) => void events.push(frame.event),
          failed: resolve,
        }, new AbortController().signal)
        utterance.speak('hello there')
        utterance.stop(() => resolve(undefined))
      })
      // The unit's planning started before the check settled.
      expect(calls).toEqual(['', 'hello there'])
      settleCheck()
      const error = await failed
      if (voiceKnown) {
        expect(error).toBeUndefined()
        expect(events).toEqual(['audio', 'audio', 'finish'])
      } else {
        expect(String(error)).toContain('voice model not found')
        expect(events).toEqual([])
      }
    }
  })

  it('waits for a place on a full node within its latency budget rather than failing the utterance', async () => {
    const events: string[] = []
    const socket = { bufferedAmount: 0, readyState: 1, OPEN: 1 } as unknown as WebSocket
    // A full node with no line and no wait: before the budget, the utterance failed with the 503 message.
    const admission = createAdmission({ limits: () => ({ streams: 1, starting: 1 }), queueLength: 0, waitMs: 0 })
    const other = await admission.admit('tts')
    const outcome = new Promise<unknown>((resolve) => {
      const utterance = new Utterance(plainTtsParams('', 'pcm'), {
        tts, admission, principal: {} as Principal, socket,
        send: (frame: { event: string }) => void events.push(frame.event),
        failed: resolve,
      }, new AbortController().signal)
      utterance.speak('hello there')
      utterance.stop(() => resolve('finished'))
    })
    await expect.poll(() => admission.snapshot().queued).toBe(1)
    expect(events).toEqual([])
    other.release()
    expect(await outcome).toBe('finished')
    expect(events).toEqual(['audio', 'audio', 'finish'])
  })
})
