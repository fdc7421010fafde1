import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { plainTtsParams } from '../../services/tts/params.js'
import { nothingToSpeak } from '../../services/tts/service.js'
import { isNothingToSpeak } from '../../services/tts/nothing-to-speak.js'
import { WYOMING_PRINCIPAL } from './principal.js'

/** The rate Parla sends Wyoming audio at (what Piper voices use, and what Home Assistant satellites play). */
export const WYOMING_TTS_RATE = 22050
/** Samples per `audio-chunk` event: about 46 ms, small enough that playback starts at once. */
const CHUNK_SAMPLES = 1024

export interface WyomingVoice {
  readonly name?: string
  readonly language?: string
}

/** `voice` of a `synthesize` / `synthesize-start` event, tolerating what clients leave out. */
export function readVoice(data: Record<string, unknown>): WyomingVoice {
  const v = data.voice
  if (!v || typeof v !== 'object') return {}
  const { name, language } = v as Record<string, unknown>
  return {
    ...(typeof name === 'string' && name.trim() !== '' && { name: name.trim() }),
    ...(typeof language === 'string' && language.trim() !== '' && { language: language.trim() }),
  }
}

/**
 * 16-bit mono PCM at WYOMING_TTS_RATE for one text, in pieces of CHUNK_SAMPLES as they are rendered. A voice
 * name is a voice model id (built-in or public); a language alone picks that language's default voice.
 * `whole`: the text is a whole request (`synthesize`), not a sentence of a stream.
 */
export async function* synthesizePcm(deps: Deps, text: string, voice: WyomingVoice, signal: AbortSignal, whole = true): AsyncGenerator<Uint8Array> {
  checkLength(deps, text)
  const params = plainTtsParams(text, 'pcm', {
    sampleRate: WYOMING_TTS_RATE,
    // A sentence of a stream is cut already, and is text: never re-cut, never read as an SSML document.
    ...(!whole && { presplit: true }),
    ...(voice.name && { referenceIds: [voice.name] }),
    ...(!voice.name && voice.language && { languageHint: voice.language.toLowerCase().replace('_', '-') }),
  })
  const speech = await deps.tts.prepare(params, WYOMING_PRINCIPAL, signal).catch((err: unknown) => {
    // The voice service points at the Fish listing; a Wyoming client lists voices with describe.
    if (!(err instanceof SpeechError) || err.code !== 'reference_not_found' || !voice.name) throw err
    throw new SpeechError('reference_not_found', `voice '${voice.name}' not found; send describe for the voices Parla has (names under tts.voices)`, { cause: err })
  })
  // A whole request with nothing to say is an error, as on the HTTP surfaces; a piece of streamed text (a
  // stray ")" between sentences) is simply silent.
  if (speech.chunks.length === 0 && whole) throw nothingToSpeak()
  // A place among the node's streams; a full node answers with an `error` event saying when to retry.
  const ticket = await deps.admission.admit('wyoming', signal, { chars: text.length })
  try {
    const session = speech.newEncoderSession()
    try {
      for await (const event of speech.render(signal, undefined, false)) {
        if (event.type !== 'audio') continue
        const bytes = session.push(event.samples)
        if (bytes.length > 0) ticket.firstAudio()
        // Each rendered piece goes out whole (the last chunk of a piece may be short): nothing waits for the next.
        for (let at = 0; at < bytes.length; at += CHUNK_SAMPLES * 2) yield bytes.subarray(at, at + CHUNK_SAMPLES * 2)
      }
    } catch (err) {
      // A piece of streamed text the voice has no sound for is silent, like one with nothing to say.
      if (whole || !isNothingToSpeak(err)) throw err
    }
  } finally {
    ticket.release()
  }
}

/** The same text limit as the HTTP surfaces (`maxTextLength`). */
export function checkLength(deps: Deps, text: string): void {
  const max = deps.config.maxTextLength
  if (text.length > max) throw new SpeechError('bad_request', `text is ${text.length} characters; the limit is ${max}. Send shorter text`)
}
