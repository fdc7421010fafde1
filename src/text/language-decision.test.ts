import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { decideLanguage } from './language.js'
import { planText } from './plan.js'

const base = { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal' } as const
/** 200 Harvard sentences (test/fixtures/language/README.md): short, plain, real English. */
const HARVARD = readFileSync(new URL('../../test/fixtures/language/en-harvard.txt', import.meta.url), 'utf8')
  .trim().split('\n')

/** 200 everyday sentences per language, written for Parla (test/fixtures/language/README.md). */
const EVERYDAY = (language: string) => readFileSync(new URL(`../../test/fixtures/language/${language}-everyday.txt`, import.meta.url), 'utf8')
  .trim().split('\n')

describe('language decision', () => {
  // Short sentences of Latin-script languages are where the decision can go wrong (it stays in English when
  // unsure); the misses left are noted in docs/benchmarks.md. Chinese and Japanese are decided by script.
  it.each([['de', 2], ['fr', 2], ['es', 6], ['zh', 0], ['ja', 0]] as const)(
    'speaks 200 short %s sentences in their language, with at most %i misses', (language, misses) => {
      const sentences = EVERYDAY(language)
      expect(sentences.length).toBe(200)
      const wrong = sentences.filter((s) => planText(s, base).some((c) => c.language !== language))
      expect(wrong.length).toBeLessThanOrEqual(misses)
    })

  it.each([
    ['El gato ha cazado un ratón.', 'es'],
    ['La sopa está demasiado salada para mí.', 'es'],
    ['Le journal est devant la porte.', 'fr'],
    ['Das Konzert beginnt um halb neun.', 'de'],
  ])('reads the function words of a short sentence the letter statistics are unsure of: "%s" is %s', (text, language) => {
    expect(decideLanguage(text)).toMatchObject({ language, reason: 'statistics' })
  })

  it.each([
    'The café de la Paix is in Paris.',
    'We ate tacos al pastor and churros.',
    'Tom said la vie en rose was his song.',
  ])('keeps English with a foreign phrase in it: "%s"', (text) => {
    expect(decideLanguage(text).language).toBe('en')
  })

  it('speaks every one of 200 short English sentences in English when no voice is named', () => {
    expect(HARVARD.length).toBe(200)
    const wrong = HARVARD.filter((s) => planText(s, base).some((c) => c.language !== 'en'))
    expect(wrong).toEqual([])
  })

  it.each([
    'Chapter 11 begins on page 204.',
    'Lincoln delivered the Gettysburg Address in 1863.',
    'A small creek cut across the field.',
    'A tame squirrel makes a nice pet.',
    'CEO, NASA, U.N., D.C.',
    'Version 2.0 ships on 12/25/1948.',
    'Call 555-123-4567.',
    'Helsinki, Tallinn and Riga.',
    'Okay.',
    'Thanks!',
    'Pedro Almodóvar won in Cannes in 1999.',
  ])('keeps "%s" in English', (text) => {
    expect(decideLanguage(text).language).toBe('en')
  })

  it.each([
    ['Guten Tag, wie geht es Ihnen heute? Mir geht es sehr gut, danke.', 'de'],
    ['Ich habe Äpfel und Birnen gekauft.', 'de'],
    ["Bonjour tout le monde, il fait beau aujourd'hui et nous allons au parc.", 'fr'],
    ['Me gusta mucho la comida de mi abuela.', 'es'],
    ['Voy a la playa con mi hermano mañana.', 'es'],
    ['Il a un chat noir et deux chiens.', 'fr'],
    ['Привет, как дела?', 'ru'],
    ['今天天气很好', 'zh'],
  ])('still recognises "%s" as %s', (text, language) => {
    expect(decideLanguage(text).language).toBe(language)
  })

  it('says why, and how sure', () => {
    expect(decideLanguage('Chapter 11 begins on page 204.')).toMatchObject({ language: 'en', reason: 'default' })
    expect(decideLanguage('今天天气很好')).toEqual({ language: 'zh', confidence: 1, reason: 'script' })
    const german = decideLanguage('Guten Tag, wie geht es Ihnen heute? Mir geht es sehr gut, danke.')
    expect(german.reason).toBe('statistics')
    expect(german.confidence).toBeGreaterThan(0.5)
  })

  it('is sure of the default when no other language is likely, however little the detector knows', () => {
    // tinyld gives English 0.05 here and every other language less.
    const lincoln = decideLanguage('Lincoln delivered the Gettysburg Address in 1863.')
    expect(lincoln).toMatchObject({ language: 'en', reason: 'default' })
    expect(lincoln.confidence).toBeGreaterThan(0.9)
  })

  it("stays in the server's configured default language for short or unclear text", () => {
    expect(planText('Hallo Welt', { ...base, defaultLanguage: 'de' })[0]?.language).toBe('de')
    expect(planText('Seite 204, Kapitel 11.', { ...base, defaultLanguage: 'de' })[0]?.language).toBe('de')
    expect(planText('The meeting starts at noon and ends at three.', { ...base, defaultLanguage: 'de' })[0]?.language).toBe('en')
    expect(planText('Okay.', base)[0]?.languageDecision).toMatchObject({ language: 'en', reason: 'default' })
  })
})
