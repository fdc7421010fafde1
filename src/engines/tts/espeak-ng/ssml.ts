/**
 * This eSpeak NG build reads its input as SSML: `<break time="99999s"/>` in user text would be obeyed and
 * `&amp;` decoded. Markup characters are therefore escaped, and because eSpeak reports positions in the
 * text it was given, a table maps each of its code points back to a UTF-16 offset in the original text.
 */
export function escapeSsml(text: string): { readonly engineText: string; readonly toText: readonly number[] } {
  let engineText = ''
  const toText: number[] = []
  let offset = 0
  for (const ch of text) {
    const out = ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '&' ? '&amp;' : ch
    for (const _ of out) toText.push(offset)
    engineText += out
    offset += ch.length
  }
  toText.push(offset)
  return { engineText, toText }
}
