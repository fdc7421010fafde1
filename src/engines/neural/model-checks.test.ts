import { describe, expect, it } from 'vitest'
import type { ModelPackage } from '../../models/types.js'
import type { TtsLoadConfig } from './protocol.js'
import { ModelChecks } from './model-checks.js'

/**
 * The order checks run in. Each package's preparation is held until the test lets it go and then fails
 * (the check ends with a "could not be prepared" verdict, no model loaded), so which preparation is asked
 * for next tells which check runs next.
 */
describe('model checks', () => {
  it('run one at a time in the order found, except that the one a request waits for goes next', async () => {
    const checks = new ModelChecks('')
    const started: string[] = []
    const release = new Map<string, () => void>()
    const target = (id: string) => ({
      tts: () => new Promise<TtsLoadConfig>((_, reject) => {
        started.push(id)
        release.set(id, () => reject(new Error('held by the test')))
      }),
    })
    const pkg = (id: string) => ({ id, kind: 'tts' }) as ModelPackage
    const verdicts = ['a', 'b', 'c', 'd'].map((id) => checks.check(pkg(id), 'stamp', target(id)))
    await until(() => started.length === 1)
    expect(started).toEqual(['a'])
    // A request for d, queued last: it goes next, before b and c.
    const waiting = checks.awaitVerdict('d', 'stamp')
    release.get('a')!()
    await until(() => started.length === 2)
    expect(started).toEqual(['a', 'd'])
    release.get('d')!()
    expect(await waiting).toMatchObject({ ok: false, reason: expect.stringMatching(/could not be prepared: held by the test/) as unknown })
    await until(() => started.length === 3)
    release.get('b')!()
    await until(() => started.length === 4)
    release.get('c')!()
    await Promise.all(verdicts)
    expect(started).toEqual(['a', 'd', 'b', 'c'])
    checks.close()
  })
})

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5))
}
