import { lookupTag } from '../../text/index.js'
import type { TagDialect } from '../../text/types.js'

const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'dont', 'avoid', 'less'])
const MAX_TAGS = 3

/**
 * `instructions` ("Speak in a calm, slightly sad tone") as the expression cues the text pipeline already
 * understands, so an OpenAI request gets the same prosody control as an s2-pro `[calm]` cue: every word or
 * phrase of up to three words that names a tag (or an alias, with an intensity word like `slightly`) and is
 * not negated ("not angry") becomes one cue, in the order written, at most three. The result is put before
 * the input text; words that name no tag have no effect.
 */
export function instructionCues(instructions: string | undefined, dialect: TagDialect): string {
  if (!instructions) return ''
  const words = instructions.toLowerCase().replace(/'/g, '').split(/[^\p{L}]+/u).filter(Boolean)
  const found: string[] = []
  for (let i = 0; i < words.length && found.length < MAX_TAGS; i++) {
    for (const n of [3, 2, 1]) {
      if (i + n > words.length) continue
      const hit = lookupTag(words.slice(i, i + n).join(' '))
      if (!hit?.entry || hit.entry.kind === 'pause') continue
      const negated = NEGATIONS.has(words[i - 1] ?? '') || NEGATIONS.has(words[i - 2] ?? '')
      if (!negated && !found.includes(hit.name)) found.push(hit.name)
      i += n - 1
      break
    }
  }
  return found.map((name) => (dialect === 's1' ? `(${name})` : `[${name}]`)).join('')
}
