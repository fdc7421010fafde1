import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kokoroLang } from '../src/engines/tts/neural/kokoro-lang.js'
import { LoadChecks } from '../src/engines/neural/load-checks.js'
import { discoverModels } from '../src/models/discover.js'
import { FIXTURES, V019, V10, writeKokoroPackages } from './support/kokoro-packages.js'

/**
 * Discovery of Kokoro packages built from the upstream projects' own code (test/fixtures/models/kokoro) and of
 * the broken variants made from them; what each multi-language call is told. The packages speaking through
 * every surface: test/kokoro.test.ts (acceptance lane).
 */
let modelsDir: string

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-kokoro-discovery-'))
  await writeKokoroPackages(modelsDir)
  await cp(join(FIXTURES, V10), join(modelsDir, 'kokoro-with-rules'), { recursive: true })
  for (const f of ['number-zh.fst', 'date-zh.fst']) await writeFile(join(modelsDir, 'kokoro-with-rules', f), '')
  // A tokens.txt of a model with a bigger symbol table: its last id is past this model's embedding.
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-foreign-tokens'), { recursive: true })
  await appendFile(join(modelsDir, 'kokoro-foreign-tokens', 'tokens.txt'), 'ʡ 300\n')
})

afterAll(() => rm(modelsDir, { recursive: true, force: true }))

describe('Kokoro packages as sherpa-onnx publishes them', () => {
  it('are recognised by their metadata; the broken variants are listed broken with the reason', async () => {
    const { packages, problems } = await discoverModels(modelsDir)
    expect(problems).toEqual([])
    const byId = Object.fromEntries(packages.map((p) => [p.id, p]))
    expect(Object.values(byId).every((p) => p.family === 'kokoro')).toBe(true)
    expect(byId[V019]).toMatchObject({ runnable: true, languages: ['en'], speakers: ['af', 'am_adam'] })
    expect(byId[V10]).toMatchObject({ runnable: true, languages: ['en-us', 'zh'], speakers: ['af_alloy', 'zf_xiaobei'], speakerLanguages: [['en-us'], ['zh']] })
    expect(byId['kokoro-no-voices']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/voices\.bin is missing/) })
    expect(byId['kokoro-short-voices']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/voices\.bin has 522244 bytes but .*n_speakers 2, style_dim 510,1,256\) needs 1044480/) })
    expect(byId['kokoro-no-lexicon']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/multi-language Kokoro model .* needs its lexicon files/) })
    expect(byId['kokoro-foreign-tokens']).toMatchObject({ runnable: false, broken: true, note: 'tokens.txt uses ids up to 300 but the model knows 178 symbols: it belongs to another model' })
    // Nothing wrong can be seen in its files: the runtime decides.
    expect(byId['kokoro-refused']).toMatchObject({ runnable: true })
  })

  it('a multi-language package gives the runtime every lexicon (English first) and every rule file', async () => {
    const pkg = (await discoverModels(modelsDir)).packages.find((p) => p.id === 'kokoro-with-rules')!
    const config = await pkg.prepare!()
    const dir = join(modelsDir, 'kokoro-with-rules')
    expect(config.kokoro!.lexicon).toBe(`${join(dir, 'lexicon-us-en.txt')},${join(dir, 'lexicon-zh.txt')}`)
    expect(config.ruleFsts).toBe(`${join(dir, 'date-zh.fst')},${join(dir, 'number-zh.fst')}`)
  })

  it('verdicts recorded at once are all kept, and a new reader sees them against the same files only', async () => {
    const file = join(modelsDir, '.parla-cache', 'load-checks.json')
    const checks = new LoadChecks(file)
    await Promise.all(['a', 'b', 'c'].map((id) => checks.record(id, `stamp-${id}`, id === 'c' ? { ok: true } : { ok: false, reason: `reason ${id}` })))
    const again = new LoadChecks(file)
    await again.load()
    expect(['a', 'b', 'c'].map((id) => again.get(id, `stamp-${id}`))).toEqual([{ ok: false, reason: 'reason a' }, { ok: false, reason: 'reason b' }, { ok: true }])
    expect(again.get('a', 'other files')).toBeUndefined()
  })

  it('each call is told the eSpeak NG voice of the decided language, else of the voice, else of the text', () => {
    expect(kokoroLang('zh', ['zh'], '你好')).toBe('cmn')
    expect(kokoroLang('en', ['zh'], 'Hello')).toBe('en-us')
    expect(kokoroLang('en', ['en-gb'], 'Hello')).toBe('en-gb-x-rp')
    expect(kokoroLang('pt', ['en-us'], 'Olá')).toBe('pt-br')
    expect(kokoroLang('de', ['en-us'], 'Hallo')).toBe('de')
    expect(kokoroLang(undefined, ['zh'], 'Hello')).toBe('cmn')
    expect(kokoroLang(undefined, [], '你好')).toBe('cmn')
    expect(kokoroLang(undefined, [], 'Hello')).toBe('en-us')
  })
})
