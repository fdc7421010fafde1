import { SpeechError } from '../../errors.js'

/** The 422 type of both answers below, so a caller can tell them from other failures. */
const NOTHING_TO_SPEAK = 'nothing_to_speak'

/**
 * Text that plans to no chunk at all (only punctuation, tags, invisible characters or lone surrogates) gets
 * this 422 on every surface (the live socket sends its message in `finish`), never an empty audio body.
 */
export const nothingToSpeak = () =>
  new SpeechError('unusable_input', 'text has nothing to speak: no words, numbers or symbols remain once tags, punctuation and invisible characters are set aside; send text with something to say', { field: ['body', 'text'], type: NOTHING_TO_SPEAK })

/**
 * Text that planned to speech but of which the voice's engine said nothing (symbols it has no words for, a
 * script it cannot read): found when the last chunk is rendered without a sample of speech, before any byte
 * of the answer is sent (rendering holds back the silence that would come first).
 */
export const voiceSaidNothing = (voiceId: string) =>
  new SpeechError('unusable_input', `text has nothing the voice '${voiceId}' can say: its engine made no sound for any of it; send words in a language this voice speaks, or choose another voice`, { field: ['body', 'text'], type: NOTHING_TO_SPEAK })

/** True for either of the errors above. */
export const isNothingToSpeak = (err: unknown): boolean =>
  err instanceof SpeechError && err.code === 'unusable_input' && err.issues[0]?.type === NOTHING_TO_SPEAK
