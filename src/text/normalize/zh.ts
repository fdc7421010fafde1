import { MAX_ZH_DIGITS, zhDigits, zhInteger, zhNumber } from './zh-numbers.js'

/** Neighbouring words of the same sentence; in Chinese text every Han character is a word. */
export interface ZhContext {
  readonly prev?: string
  readonly next?: string
}

const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`
const NUMBER = new RegExp(`^[-−+]?(?:${NUM})$`)
const MONEY = new RegExp(`^([-−]?)([¥￥$€£])(${NUM})$`)
const PERCENT = new RegExp(`^([-−]?)(${NUM})[%％]$`)
const TIME = /^(\d{1,2})[:：](\d{2})$/
const DATE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/
const RANGE = new RegExp(`^(${NUM})[%％]?[-–~～](${NUM})([%％]?)$`)
const WITH_UNIT = new RegExp(`^([-−]?${NUM})([A-Za-z°℃℉µ/]+)$`)

const CURRENCY_NAMES: Readonly<Record<string, string>> = { '$': '美元', '€': '欧元', '£': '英镑' }
const UNITS: Readonly<Record<string, string>> = {
  km: '公里', m: '米', cm: '厘米', mm: '毫米', kg: '公斤', g: '克', mg: '毫克', l: '升', L: '升', ml: '毫升',
  mL: '毫升', '°C': '摄氏度', '℃': '摄氏度', '°F': '华氏度', '℉': '华氏度', '°': '度', 'km/h': '公里每小时',
  h: '小时', min: '分钟', s: '秒', ms: '毫秒', kb: '千字节', KB: '千字节', MB: '兆字节', GB: '吉字节',
}
// Before these measure words a lone 2 is 两 ("2个" → "两个"), as people say it.
const MEASURE_WORDS = new Set(['个', '位', '只', '本', '件', '次', '天', '种', '张', '条', '辆', '点', '台', '家', '杯'])

/** "¥5.50" → "五元五角"; ¥0.05 → "五分"; foreign currencies read the amount as a decimal. */
function money(sign: string, amount: string): string {
  const name = CURRENCY_NAMES[sign]
  const plain = amount.replace(/,/g, '')
  if (name) return zhNumber(plain) + name
  const [int = '0', frac = ''] = plain.split('.')
  if (frac.length > 2) return `${zhNumber(plain)}元`
  const jiao = Number(frac[0] ?? '0')
  const fen = Number(frac[1] ?? '0')
  let out = int === '0' && (jiao || fen) ? '' : `${zhInteger(int)}元`
  if (jiao) out += `${zhDigits(String(jiao))}角`
  else if (fen && out) out += '零'
  if (fen) out += `${zhDigits(String(fen))}分`
  return out
}

function time(h: string, m: string): string | undefined {
  const hour = Number(h)
  const minute = Number(m)
  if (hour > 24 || minute > 59) return undefined
  const hourWords = hour === 2 ? '两' : zhInteger(h)
  if (minute === 0) return `${hourWords}点`
  return `${hourWords}点${minute < 10 ? '零' : ''}${zhInteger(m)}分`
}

/** Chinese spoken form of one written word; the word itself when nothing applies. */
export function normalizeChinese(w: string, ctx: ZhContext): string {
  if (!/\d/.test(w)) {
    const unit = UNITS[w]
    return unit !== undefined && ctx.prev !== undefined && /\d$/.test(ctx.prev) ? unit : w
  }
  let m: RegExpExecArray | null
  if ((m = MONEY.exec(w))) return (m[1] ? '负' : '') + money(m[2] as string, m[3] as string)
  if ((m = PERCENT.exec(w))) return `${m[1] ? '负' : ''}百分之${zhNumber(m[2] as string)}`
  if ((m = TIME.exec(w))) return time(m[1] as string, m[2] as string) ?? zhNumber(w.replace(/\D/g, ''))
  if ((m = DATE.exec(w))) {
    return `${zhDigits(m[1] as string)}年${zhInteger(m[2] as string)}月${zhInteger(m[3] as string)}日`
  }
  if ((m = RANGE.exec(w))) {
    const pct = m[3] ? '百分之' : ''
    return `${pct}${zhNumber(m[1] as string)}到${pct}${zhNumber(m[2] as string)}`
  }
  if ((m = WITH_UNIT.exec(w))) {
    const unit = UNITS[m[2] as string]
    return zhNumber(m[1] as string) + (unit ?? m[2])
  }
  if (NUMBER.test(w)) {
    const digits = w.replace(/^[-−+]/, '')
    // A four-digit number before 年 is a year, read digit by digit: 2025年 → 二零二五年.
    if (ctx.next === '年' && /^\d{4}$/.test(digits)) return zhDigits(digits)
    if (/^\d+$/.test(digits) && digits.length >= Math.min(11, MAX_ZH_DIGITS)) return zhDigits(digits)
    if (digits === '2' && w === '2' && MEASURE_WORDS.has(ctx.next ?? '')) return '两'
    return zhNumber(w)
  }
  return w.replace(/\d+(?:\.\d+)?/g, (n) => zhNumber(n))
}
