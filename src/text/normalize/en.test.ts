import { describe, expect, it } from 'vitest'
import { planText } from '../plan.js'
import { cardinal, ordinal, year } from './en-numbers.js'
import { normalizeEnglish } from './en.js'

/** Spoken text of `text` as one English chunk, normalized. */
function say(text: string): string {
  const chunks = planText(text, {
    dialect: 's2-pro', normalize: true, chunkLength: 300, minChunkLength: 0, latency: 'normal', language: 'en',
  })
  return chunks.map((c) => c.spoken).join(' ')
}

describe('English number words', () => {
  it.each([
    ['0', 'zero'], ['7', 'seven'], ['13', 'thirteen'], ['21', 'twenty-one'], ['100', 'one hundred'],
    ['101', 'one hundred one'], ['999', 'nine hundred ninety-nine'], ['1000', 'one thousand'],
    ['1250', 'one thousand two hundred fifty'], ['1000000', 'one million'],
    ['12345678', 'twelve million three hundred forty-five thousand six hundred seventy-eight'],
    ['1000000000000', 'one trillion'],
  ])('cardinal %s → %s', (digits, words) => {
    expect(cardinal(digits)).toBe(words)
  })

  it('reads integers longer than fifteen digits digit by digit', () => {
    expect(cardinal('1234567890123456')).toBe('one two three four five six seven eight nine zero one two three four five six')
  })

  it.each([
    ['1', 'first'], ['2', 'second'], ['3', 'third'], ['5', 'fifth'], ['8', 'eighth'], ['9', 'ninth'],
    ['12', 'twelfth'], ['20', 'twentieth'], ['22', 'twenty-second'], ['100', 'one hundredth'],
    ['101', 'one hundred first'],
  ])('ordinal %s → %s', (digits, words) => {
    expect(ordinal(digits)).toBe(words)
  })

  it.each([
    ['1999', 'nineteen ninety-nine'], ['1900', 'nineteen hundred'], ['1905', 'nineteen oh five'],
    ['2000', 'two thousand'], ['2005', 'two thousand five'], ['2010', 'twenty ten'], ['2025', 'twenty twenty-five'],
    ['1100', 'eleven hundred'], ['1066', 'ten sixty-six'],
  ])('year %s → %s', (digits, words) => {
    expect(year(digits)).toBe(words)
  })
})

describe('English normalization, by category', () => {
  it.each([
    // cardinals, decimals, negatives
    ['I have 42 apples', 'I have forty-two apples'],
    ['1,000,000 people', 'one million people'],
    ['pi is 3.14', 'pi is three point one four'],
    ['0.5 and .5', 'zero point five and point five'],
    ['it is -5 outside', 'it is minus five outside'],
    ['−12.5 degrees', 'minus twelve point five degrees'],
    ['agent 007', 'agent zero zero seven'],
    // ordinals
    ['the 1st, 2nd, 3rd and 4th', 'the first, second, third and fourth'],
    ['her 22nd birthday', 'her twenty-second birthday'],
    ['the 101st time', 'the one hundred first time'],
    // years
    ['born in 1999.', 'born in nineteen ninety-nine.'],
    ['in 1066 they came', 'in ten sixty-six they came'],
    ['1999 was great', 'nineteen ninety-nine was great'],
    ['since 2005', 'since two thousand five'],
    ['2048 pixels wide', 'two thousand forty-eight pixels wide'],
    ['the 1990s and the 80s', 'the nineteen nineties and the eighties'],
    // dates
    ['on 3/4/2025', 'on March fourth, twenty twenty-five'],
    ['12/25/1999', 'December twenty-fifth, nineteen ninety-nine'],
    ['2025-03-04', 'March fourth, twenty twenty-five'],
    ['March 4, 2025', 'March fourth, twenty twenty-five'],
    ['Jan. 5, 2025', 'January fifth, twenty twenty-five'],
    // times
    ['at 3:30 pm', 'at three thirty pee em'],
    ['at 3:00 pm', 'at three pee em'],
    ['at 3:00', "at three o'clock"],
    ['at 14:05', 'at fourteen oh five'],
    ['at 14:00', 'at fourteen hundred'],
    ['at 9:07', 'at nine oh seven'],
    ['at 3pm', 'at three pee em'],
    ['at 10:30am', 'at ten thirty ay em'],
    ['at 7 a.m. sharp', 'at seven ay em sharp'],
    // currencies
    ['$1,250', 'one thousand two hundred fifty dollars'],
    ['$5.50', 'five dollars and fifty cents'],
    ['$1', 'one dollar'],
    ['$0.99', 'ninety-nine cents'],
    ['$1.01', 'one dollar and one cent'],
    ['$5 million', 'five million dollars'],
    ['$1.5M', 'one point five million dollars'],
    ['$3k', 'three thousand dollars'],
    ['$5-10', 'five to ten dollars'],
    ['€20', 'twenty euros'],
    ['20€', 'twenty euros'],
    ['£3.20', 'three pounds and twenty pence'],
    ['¥500', 'five hundred yen'],
    ['-$5', 'minus five dollars'],
    // percentages
    ['50%', 'fifty percent'],
    ['3.5% growth', 'three point five percent growth'],
    ['-2%', 'minus two percent'],
    ['10-20%', 'ten to twenty percent'],
    // units
    ['5 km', 'five kilometers'],
    ['1 km', 'one kilometer'],
    ['5km', 'five kilometers'],
    ['1.5 kg', 'one point five kilograms'],
    ['60 mph', 'sixty miles per hour'],
    ['20°C', 'twenty degrees Celsius'],
    ['-3°C', 'minus three degrees Celsius'],
    ['98.6°F', 'ninety-eight point six degrees Fahrenheit'],
    ['500 ml', 'five hundred milliliters'],
    ['5 cm', 'five centimeters'],
    ['2 GB', 'two gigabytes'],
    ['100 km/h', 'one hundred kilometers per hour'],
    ['5in', 'five inches'],
    ['5 in the box', 'five in the box'],
    ['10-20km', 'ten to twenty kilometers'],
    // abbreviations
    ['Dr. Smith', 'Doctor Smith'],
    ['I live on Elm Dr. now', 'I live on Elm Drive now'],
    ['Mr. and Mrs. Jones', 'Mister and Missus Jones'],
    ['St. Louis', 'Saint Louis'],
    ['on Main St.', 'on Main Street.'],
    ['apples, oranges, etc.', 'apples, oranges, et cetera.'],
    ['fruit, e.g. apples', 'fruit, for example apples'],
    ['one, i.e. the first', 'one, that is the first'],
    ['cats vs. dogs', 'cats versus dogs'],
    ['cats vs dogs', 'cats versus dogs'],
    ['No. 5', 'number five'],
    ["No. I won't.", "No. I won't."],
    // phone-like digit strings
    ['call 555-1234', 'call five five five, one two three four'],
    ['Dial 911 now', 'Dial nine one one now'],
    ['call 311 or 112', 'call three one one or one hundred twelve'],
    ['dial 112', 'dial one one two'],
    ['311 people', 'three hundred eleven people'],
    ['call 555-123-4567', 'call five five five, one two three, four five six seven'],
    ['(555) 123-4567', '(five five five) one two three, four five six seven'],
    ['+1-555-123-4567', 'plus one, five five five, one two three, four five six seven'],
    // ranges
    ['pages 1-5', 'pages one to five'],
    ['1999-2001', 'nineteen ninety-nine to two thousand one'],
    ['ages 3–7', 'ages three to seven'],
    // fractions, symbols, mixed
    ['1/2 cup', 'one half cup'],
    ['3/4 of it', 'three quarters of it'],
    ['2/3', 'two thirds'],
    ['7/16', 'seven over sixteen'],
    ['#1 fan', 'number one fan'],
    ['A & B', 'A and B'],
    ['2 + 2 = 4', 'two plus two equals four'],
    ['COVID-19', 'COVID nineteen'],
    ['MP3 files', 'MP three files'],
    ['version 1.2.3', 'version one point two point three'],
    ['v1.2.3', 'version one point two point three'],
    ['3:30:15', 'three thirty and fifteen seconds'],
  ])('%s → %s', (text, spoken) => {
    expect(say(text)).toBe(spoken)
  })

  it('ends the sentence after a street abbreviation, and keeps its period in the spoken text', () => {
    const chunks = planText('I live at 12 Main St. The house is blue. See St. Louis.', {
      dialect: 's2-pro', normalize: true, chunkLength: 100, minChunkLength: 0, latency: 'low', language: 'en',
    })
    expect(chunks.map((c) => c.spoken)).toEqual([
      'I live at twelve Main Street.', 'The house is blue.', 'See Saint Louis.',
    ])
  })

  it('says "$1,250 on 3/4/2025" the way a person would', () => {
    expect(say('$1,250 on 3/4/2025')).toBe('one thousand two hundred fifty dollars on March fourth, twenty twenty-five')
  })

  it('leaves plain words, and words that only look like abbreviations, alone', () => {
    expect(normalizeEnglish('hello', {})).toBe('hello')
    expect(normalizeEnglish('am', { prev: 'I' })).toBe('am')
    expect(normalizeEnglish('AM', { next: 'radio' })).toBe('AM')
    expect(normalizeEnglish('km', { prev: 'the' })).toBe('km')
  })
})
