import { describe, expect, it } from 'vitest'
import { decideLanguage, normalizeLanguageCode, scriptLanguage } from './language.js'
import { planText } from './plan.js'

/** The decided language's code, as synthesis uses it. */
const detectLanguage = (text: string, fallback?: string) => decideLanguage(text, fallback).language

describe('decideLanguage', () => {
  it.each([
    ['This is a test of the emergency broadcast system.', 'en'],
    ['I paid $1,250 on 3/4/2025.', 'en'],
    ['Guten Tag, wie geht es Ihnen heute? Mir geht es sehr gut, danke.', 'de'],
    ["Bonjour tout le monde, il fait beau aujourd'hui et nous allons au parc.", 'fr'],
    ['今天天气很好', 'zh'],
    ['我用iPhone打电话', 'zh'],
    ['こんにちは、元気ですか', 'ja'],
    ['東京に行きます', 'ja'],
    ['안녕하세요 반갑습니다', 'ko'],
  ])('%s → %s', (text, lang) => {
    expect(detectLanguage(text)).toBe(lang)
  })

  it('falls back to English for text too short or without letters', () => {
    expect(detectLanguage('Hi')).toBe('en')
    expect(detectLanguage('42')).toBe('en')
    expect(detectLanguage('')).toBe('en')
  })

  it("stays in the fallback (the chosen voice's language) where tinyld guesses", () => {
    // tinyld alone guesses es 0.1 on these few English words; the default (English) stands.
    expect(detectLanguage('Let me check.')).toBe('en')
    expect(detectLanguage('Let me check.', 'en')).toBe('en')
    expect(detectLanguage('Okay.', 'en-us')).toBe('en')
    expect(detectLanguage('Hi', 'de')).toBe('de')
    // Confident answers and other scripts still win over the voice.
    expect(detectLanguage('Bonjour à tous', 'en')).toBe('fr')
    expect(detectLanguage('Привет, как дела?', 'en')).toBe('ru')
    expect(detectLanguage('今天天气很好', 'en')).toBe('zh')
    expect(detectLanguage('Guten Tag, wie geht es Ihnen heute? Mir geht es sehr gut, danke.', 'en')).toBe('de')
  })
})

describe('scriptLanguage', () => {
  it('decides CJK by script and leaves other scripts to statistics', () => {
    expect(scriptLanguage('北京欢迎你')).toBe('zh')
    expect(scriptLanguage('ひらがな')).toBe('ja')
    expect(scriptLanguage('I love 北京 a lot')).toBeUndefined()
    expect(scriptLanguage('Hello')).toBeUndefined()
  })
})

describe('normalizeLanguageCode', () => {
  it('lower-cases and keeps the primary subtag', () => {
    expect(normalizeLanguageCode('zh-CN')).toBe('zh')
    expect(normalizeLanguageCode('EN_us')).toBe('en')
    expect(normalizeLanguageCode(' de ')).toBe('de')
    expect(normalizeLanguageCode('')).toBe('en')
  })
})

describe('language in planText', () => {
  const base = { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal' } as const

  it('lets options.language override detection', () => {
    const [chunk] = planText('今天是2025年3月4日', { ...base, language: 'en' })
    expect(chunk?.language).toBe('en')
    // English rules do not touch the year before 年; no Chinese reading is applied.
    expect(chunk?.spoken).toContain('twenty twenty-five')
  })

  it("keeps short text in the chosen voice's language", () => {
    expect(planText('Let me check.', base)[0]?.language).toBe('en')
    expect(planText('Hallo Welt', { ...base, voiceLanguages: ['de'] })[0]?.language).toBe('de')
    expect(planText('Let me check.', { ...base, voiceLanguages: ['en-us'] })[0]?.language).toBe('en')
  })

  it('does not normalize languages without a normalizer', () => {
    const [chunk] = planText('Ich habe 42 Äpfel und 3 Birnen gekauft.', base)
    expect(chunk?.language).toBe('de')
    expect(chunk?.spoken).toBe('Ich habe 42 Äpfel und 3 Birnen gekauft.')
  })
})
