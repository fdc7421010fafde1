// Expression-tag help: the server's own tag table, as buttons that insert a tag at the cursor.
import { TAG_ENTRIES } from '../../src/text/tag-table.js'
import { $, el } from './ui.js'

export function initTagHelp(textarea: HTMLTextAreaElement, model: HTMLSelectElement): void {
  const list = $('tag-list')
  const kinds = ['emotion', 'tone', 'effect', 'pause'] as const
  for (const kind of kinds) {
    const names = TAG_ENTRIES.filter((t) => t.kind === kind).map((t) => t.name)
    const buttons = names.map((name) => {
      const b = el('button', { type: 'button', className: 'tag', textContent: name })
      b.addEventListener('click', () => {
        const tag = model.value === 's1' ? `(${name})` : `[${name}]`
        const at = textarea.selectionStart ?? textarea.value.length
        textarea.setRangeText(`${tag} `, at, textarea.selectionEnd ?? at, 'end')
        textarea.focus()
      })
      return b
    })
    list.append(el('div', { className: 'tag-group' }, el('strong', { textContent: `${kind}: ` }), ...buttons))
  }
  $('ssml-example').addEventListener('click', () => {
    textarea.value = SSML_EXAMPLE
    textarea.focus()
  })
}

/** A document that shows what SSML does here (docs/ssml.md), in the playground's default language. */
const SSML_EXAMPLE = `<speak>
  <p>Hello from Parla. <break time="700ms"/> This is <emphasis level="strong">SSML</emphasis>.</p>
  <p><prosody rate="slow" pitch="-2st">Slower, and a little lower.</prosody>
    The <sub alias="World Wide Web Consortium">W3C</sub> wrote it; spell it: <say-as interpret-as="characters">SSML</say-as>.</p>
  <p><voice name="flite-awb">Another voice says hello.</voice> <lang xml:lang="de-DE">Und auf Deutsch: guten Tag.</lang></p>
</speak>`
