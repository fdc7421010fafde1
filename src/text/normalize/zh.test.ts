import { describe, expect, it } from 'vitest'
import { planText } from '../plan.js'
import { zhInteger, zhNumber } from './zh-numbers.js'

function say(text: string, language?: string): string {
  const chunks = planText(text, {
    dialect: 's2-pro', normalize: true, chunkLength: 300, minChunkLength: 0, latency: 'normal',
    ...(language ? { language } : {}),
  })
  return chunks.map((c) => c.spoken).join('')
}

describe('Chinese numerals', () => {
  it.each([
    ['0', '零'], ['5', '五'], ['10', '十'], ['11', '十一'], ['20', '二十'], ['100', '一百'], ['101', '一百零一'],
    ['110', '一百一十'], ['1000', '一千'], ['1001', '一千零一'], ['1010', '一千零一十'], ['10000', '一万'],
    ['10001', '一万零一'], ['100000', '十万'], ['100010', '十万零一十'], ['12345678', '一千二百三十四万五千六百七十八'],
    ['100000000', '一亿'], ['100010000', '一亿零一万'], ['100000001', '一亿零一'],
  ])('%s → %s', (digits, words) => {
    expect(zhInteger(digits)).toBe(words)
  })

  it.each([
    ['3.14', '三点一四'], ['0.5', '零点五'], ['-5', '负五'], ['1,000', '一千'], ['007', '零零七'],
  ])('number %s → %s', (written, words) => {
    expect(zhNumber(written)).toBe(words)
  })
})

describe('Chinese normalization, by category', () => {
  it.each([
    ['2025年3月4日', '二零二五年三月四日'],
    ['日期2025-03-04', '日期二零二五年三月四日'],
    ['12月31日', '十二月三十一日'],
    ['涨了50%', '涨了百分之五十'],
    ['增长3.5%', '增长百分之三点五'],
    ['下降-2%', '下降负百分之二'],
    ['圆周率是3.14', '圆周率是三点一四'],
    ['价格¥100', '价格一百元'],
    ['价格￥5.50', '价格五元五角'],
    ['找零¥0.05', '找零五分'],
    ['价格¥5.05', '价格五元零五分'],
    ['花了100元', '花了一百元'],
    ['花了$5', '花了五美元'],
    ['时间14:05', '时间十四点零五分'],
    ['时间14：05', '时间十四点零五分'],
    ['涨了50％', '涨了百分之五十'],
    ['下午3:30', '下午三点三十分'],
    ['8:00开会', '八点开会'],
    ['2:15出发', '两点十五分出发'],
    ['我有2个苹果', '我有两个苹果'],
    ['第2名', '第二名'],
    ['1-5页', '一到五页'],
    ['增长10%-20%', '增长百分之十到百分之二十'],
    ['跑了5km', '跑了五公里'],
    ['气温20℃', '气温二十摄氏度'],
    ['重5kg', '重五公斤'],
    ['电话13800138000', '电话一三八零零一三八零零零'],
    ['有12345人', '有一万二千三百四十五人'],
  ])('%s → %s', (text, spoken) => {
    expect(say(text)).toBe(spoken)
  })

  it('keeps the token map on the written numbers', () => {
    const [chunk] = planText('2025年3月4日', {
      dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal',
    })
    expect(chunk?.language).toBe('zh')
    expect(chunk?.tokens.map((t) => [t.text, chunk.spoken.slice(t.spokenStart, t.spokenEnd)])).toEqual([
      ['2025', '二零二五'], ['年', '年'], ['3', '三'], ['月', '月'], ['4', '四'], ['日', '日'],
    ])
  })

  it('uses Chinese rules for Han-free text when the language is forced', () => {
    expect(say('2025-03-04', 'zh')).toBe('二零二五年三月四日')
    expect(say('2025-03-04', 'zh-CN')).toBe('二零二五年三月四日')
  })

  it('normalizes an English sentence inside Chinese text with English rules', () => {
    expect(say('我今天很开心。I paid $5 today.')).toBe('我今天很开心。I paid five dollars today.')
  })
})
