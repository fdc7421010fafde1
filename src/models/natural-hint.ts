/**
 * What the server's start log and the playground say when no neural voice is installed: one command that gets a
 * natural voice. Kept free of imports so the playground's bundle can use it as is.
 */
export const SUGGESTED_VOICE = 'en_US-lessac-medium'

export const NATURAL_VOICE_HINT =
  `no neural voice is installed: for natural speech run 'parla models pull ${SUGGESTED_VOICE}' on the server ('parla models catalog' lists more voices and languages)`

/** Whether any of these voice model ids is a neural one (built-in neural voices are `neural-…`). */
export const hasNeuralVoice = (ids: Iterable<string>): boolean => {
  for (const id of ids) if (id.startsWith('neural-')) return true
  return false
}
