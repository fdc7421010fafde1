import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { filesStamp } from '../engines/neural/load-checks.js'
import { loadTargetOf, ModelChecks } from '../engines/neural/model-checks.js'
import { discoverModels } from './discover.js'
import { findSileroVad } from './silero-vad.js'
import { addModel } from './store.js'

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/models/', import.meta.url))
const SILERO = join(FIXTURES, 'silero-vad', 'silero_vad.onnx')

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-silero-'))
})
afterEach(async () => rm(dir, { recursive: true, force: true }))

describe('Silero VAD packages', () => {
  it('finds the published silero_vad.onnx as a file of its own or in a folder, as a runnable VAD', async () => {
    await copyFile(SILERO, join(dir, 'silero_vad.onnx'))
    const { packages, problems } = await discoverModels(dir)
    expect(problems).toEqual([])
    expect(packages).toMatchObject([{ id: 'silero_vad.onnx', family: 'silero-vad', kind: 'vad', runnable: true, vad: { model: join(dir, 'silero_vad.onnx') } }])
    await rm(join(dir, 'silero_vad.onnx'))
    await mkdir(join(dir, 'silero-vad-v5'))
    await copyFile(SILERO, join(dir, 'silero-vad-v5', 'silero_vad.onnx'))
    expect(await findSileroVad(dir)).toMatchObject({ id: 'silero-vad-v5', runnable: true, vad: { model: join(dir, 'silero-vad-v5', 'silero_vad.onnx') } })
  })

  it('is loaded by the runtime when checked, as every package found is', async () => {
    await copyFile(SILERO, join(dir, 'silero_vad.onnx'))
    const pkg = (await findSileroVad(dir))!
    const checks = new ModelChecks('')
    try {
      expect(await checks.check(pkg, await filesStamp(pkg.path), loadTargetOf(pkg))).toEqual({ ok: true })
    } finally {
      checks.close()
    }
  })

  it('installs it with `models add`', async () => {
    const pkg = await addModel(join(dir, 'models'), SILERO)
    expect(pkg).toMatchObject({ id: 'silero_vad.onnx', kind: 'vad', runnable: true })
    expect((await findSileroVad(join(dir, 'models')))?.id).toBe('silero_vad.onnx')
  })

  it('lists a damaged file or another graph under that name as broken, saying why', async () => {
    await writeFile(join(dir, 'silero_vad.onnx'), Buffer.from('<html>Not Found</html>'))
    const damaged = await findSileroVad(dir)
    expect(damaged).toMatchObject({ kind: 'vad', runnable: false, broken: true })
    expect(damaged?.note).toMatch(/silero_vad\.onnx .*download silero_vad\.onnx again/)
    await copyFile(join(FIXTURES, 'whisper', 'wide-tiny-encoder.onnx'), join(dir, 'silero_vad.onnx'))
    const other = await findSileroVad(dir)
    expect(other).toMatchObject({ runnable: false, broken: true })
    expect(other?.note).toMatch(/is not a Silero VAD graph \(its inputs are /)
  })

  it('is not found in a folder without one', async () => {
    expect(await findSileroVad(dir)).toBeUndefined()
    expect(await findSileroVad(join(dir, 'missing'))).toBeUndefined()
  })
})
