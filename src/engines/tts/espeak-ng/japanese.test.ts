import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect } from '../../../../test/support/tts-engine-kit.js'
import type { TtsEngine } from '../types.js'
import { createEspeakEngine } from './index.js'
import { toKana } from './japanese.js'

let engine: TtsEngine

beforeAll(async () => {
  engine = await createEspeakEngine({ processes: 1 })
})
afterAll(() => engine?.close())

const seconds = (c: { samples: Float32Array }) => c.samples.length / engine.sampleRate

describe('Japanese with kanji', () => {
  it('reads kanji words as kana, each reading pointing back at its word', async () => {
    const text = '東京に行きます'
    const kana = await toKana(text)
    expect(kana.text.startsWith('トーキョー')).toBe(true)
    expect(kana.text).not.toMatch(/[\u4e00-\u9fff]/)
    expect(kana.toOriginal.slice(0, 5)).toEqual([0, 0, 0, 0, 0])
    expect(kana.toOriginal.at(-1)).toBe(text.length)
  })

  it('speaks a kanji sentence about as long as the same sentence written in kana', async () => {
    // Before: eSpeak said "Chinese letter" for every kanji (13.8 s for 29 characters).
    const kanji = await collect(engine, { text: '私は毎朝七時に起きて、駅まで歩きます。', voice: 'ja' })
    const kana = await collect(engine, { text: 'わたしはまいあさしちじにおきて、えきまであるきます。', voice: 'ja' })
    expect(seconds(kanji)).toBeGreaterThan(0.5)
    expect(seconds(kanji)).toBeLessThan(seconds(kana) * 1.3)
    expect(seconds(kanji)).toBeGreaterThan(seconds(kana) * 0.7)
  })

  it('keeps word times on the words the user wrote, and Chinese still reads as Chinese', async () => {
    const c = await collect(engine, { text: '東京に行きます', voice: 'ja' })
    expect(c.words.length).toBeGreaterThan(0)
    for (const w of c.words) expect(w.end).toBeGreaterThan(w.start)
    expect(c.words[0]!.charStart).toBe(0)
    expect(c.words.every((w) => w.charEnd <= 7)).toBe(true)
    const zh = await collect(engine, { text: '今天天气很好', voice: 'cmn' })
    expect(seconds(zh)).toBeGreaterThan(0.8)
    expect(seconds(zh)).toBeLessThan(4)
  })
})
