/** Chinese number reading: 个十百千万亿 with the usual 零 rules. */

const DIGITS = '零一二三四五六七八九'
const SMALL_UNITS = ['千', '百', '十', ''] as const
const BIG_UNITS = ['', '万', '亿', '万亿'] as const
/** Longer integers (phone numbers, ids) are read digit by digit. */
export const MAX_ZH_DIGITS = 16

/** "2025" → "二零二五". */
export function zhDigits(digits: string): string {
  return [...digits].map((d) => DIGITS[Number(d)] ?? d).join('')
}

// 1..9999 inside one 万 group; zeros in the middle read one 零, trailing zeros are silent.
function group(n: number): string {
  const padded = String(n).padStart(4, '0')
  let out = ''
  let started = false
  let zero = false
  for (let k = 0; k < 4; k++) {
    const d = Number(padded[k])
    if (d === 0) {
      if (started) zero = true
      continue
    }
    if (zero) out += '零'
    zero = false
    out += (DIGITS[d] as string) + SMALL_UNITS[k]
    started = true
  }
  return out
}

/** Integer given as digits: "10" → "十", "101" → "一百零一", "100010000" → "一亿零一万". */
export function zhInteger(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '')
  if (clean.length > MAX_ZH_DIGITS) return zhDigits(clean)
  if (/^0+$/.test(clean)) return '零'
  const groups: number[] = []
  for (let end = clean.length; end > 0; end -= 4) groups.unshift(Number(clean.slice(Math.max(0, end - 4), end)))
  let out = ''
  let gap = false
  groups.forEach((g, i) => {
    if (g === 0) {
      if (out) gap = true
      return
    }
    if (out && (gap || g < 1000)) out += '零'
    out += group(g) + BIG_UNITS[groups.length - 1 - i]
    gap = false
  })
  return out.startsWith('一十') ? out.slice(1) : out
}

/** "3.14" → "三点一四"; "-5" → "负五"; "1,000" → "一千"; leading-zero codes read digit by digit. */
export function zhNumber(written: string): string {
  const negative = /^[-−]/.test(written)
  const body = written.replace(/^[-−+]/, '').replace(/,/g, '')
  const [int = '', frac] = body.split('.')
  let words: string
  if (int.length > 1 && int.startsWith('0') && frac === undefined) words = zhDigits(int)
  else words = zhInteger(int || '0') + (frac === undefined ? '' : `点${zhDigits(frac)}`)
  return negative ? `负${words}` : words
}
