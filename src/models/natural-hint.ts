/**
 * What the server's start log and the playground say when no neural voice is installed: one command that gets a
 * natural voice. Kept free of imports so the playground's bundle can use it as is.
 */
export const SUGGESTED_VOICE = 'en_US-lessac-medium'

export const NATURAL_VOICE_HINT =
  `no neural voice is installed: for natural speech run 'parla models pull ${SUGGESTED_VOICE}' on the server ('parla models catalog' lists more voices and languages)`

/**
 * Whether any of these voice model ids speaks naturally: a neural package's voice (`neural-…`) or a forwarding
 * upstream's (`upstream-…`, a fish-speech server or another Parla), rather than only the classic engines'.
 */
export const hasNaturalVoice = (ids: Iterable<string>): boolean => {
  for (const id of ids) if (id.startsWith('neural-') || id.startsWith('upstream-')) return true
  return false
}
