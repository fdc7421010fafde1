import { copyFile, cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { pcm16 } from './helpers/tts-audio.js'
import { FIXTURES, V10 } from './support/kokoro-packages.js'

/**
 * A multi-language Kokoro package's `*.fst` text-normalisation rules reach the runtime and change what is
 * spoken. The rule (scripts/models/kokoro/rule-fst.sh, compiled by OpenFst's own tools) rewrites "界" as
 * "世界世界世界世界", so the same text and voice speak longer with it than without it.
 */
const RATE = 24_000
let s: TestServer
let modelsDir: string

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-kokoro-rules-'))
  await cp(join(FIXTURES, V10), join(modelsDir, V10), { recursive: true })
  await cp(join(FIXTURES, V10), join(modelsDir, 'kokoro-with-rules'), { recursive: true })
  await copyFile(join(FIXTURES, 'rules', 'expand-zh.fst'), join(modelsDir, 'kokoro-with-rules', 'expand-zh.fst'))
  s = await startTestServer({ modelsDir })
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

const samples = async (voice: string) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { text: '你好世界', reference_id: voice, format: 'pcm', sample_rate: RATE, normalize: false } })
  expect(res.statusCode, res.body).toBe(200)
  return pcm16(res.rawPayload).length
}

it('the package\'s rule FSTs rewrite the text before it is spoken', async () => {
  const plain = await samples('neural-kokoro-multi-lang-v1-0-zf-xiaobei')
  const ruled = await samples('neural-kokoro-with-rules-zf-xiaobei')
  expect(plain).toBeGreaterThan(RATE / 10)
  // Four words instead of two more: the rewritten text is at least twice as long to speak.
  expect(ruled).toBeGreaterThan(plain * 2)
})
