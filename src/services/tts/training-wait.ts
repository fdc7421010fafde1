import { setTimeout as sleep } from 'node:timers/promises'
import type { UsableModel } from './voice-resolver.js'

const TRAINING_STATES = new Set(['created', 'training'])
const FIRST_POLL_MS = 100
const MAX_POLL_MS = 500

export const isTraining = (model: UsableModel) => TRAINING_STATES.has(model.state)

/**
 * Waits while a just-created voice model trains (seconds), so a script that creates a voice and speaks with
 * it at once is answered with speech rather than a 409. Reads the model again with growing pauses rather
 * than listening for this process's training queue: with several nodes on one database, another node may be
 * the one training it. Returns the last reading: trained, failed, gone (null), or still training when
 * `waitMs` ran out. Rejects with the signal's reason when the client goes away.
 */
export async function awaitTraining(
  read: () => Promise<UsableModel | null>,
  model: UsableModel,
  waitMs: number,
  signal?: AbortSignal,
): Promise<UsableModel | null> {
  const deadline = performance.now() + waitMs
  let current: UsableModel | null = model
  let pause = FIRST_POLL_MS
  while (current && isTraining(current)) {
    const left = deadline - performance.now()
    if (left <= 0) break
    await sleep(Math.min(pause, left), undefined, signal ? { signal } : {})
    pause = Math.min(pause * 2, MAX_POLL_MS)
    current = await read()
  }
  return current
}
