/**
 * festival and flite read 8-bit text and misread UTF-8 (bytes of `é` become words of their own). This maps
 * each UTF-16 unit to exactly one printable ASCII character, so offsets into the result are offsets into the
 * original: typographic quotes and dashes to their ASCII forms, accented letters to their base letter,
 * control characters and anything unspeakable (emoji, CJK) to a space.
 */

const PUNCTUATION: Readonly<Record<string, string>> = {
  '‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'", 'ʼ': "'",
  '“': '"', '”': '"', '„': '"', '‟': '"', '″': '"', '«': '"', '»': '"',
  '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-',
  '…': '.', '·': '.', '•': '.',
}

export function toAsciiText(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    const code = ch.charCodeAt(0)
    if (code >= 0x20 && code < 0x7f) out += ch
    else if (code < 0x80) out += ' '
    else out += PUNCTUATION[ch] ?? baseLetter(ch)
  }
  return out
}

function baseLetter(ch: string): string {
  const base = ch.normalize('NFKD')[0] ?? ' '
  return /^[A-Za-z]$/.test(base) ? base : ' '
}
