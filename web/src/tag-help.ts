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
}
