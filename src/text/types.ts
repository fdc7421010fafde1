import type { LanguageDecision } from './language-decision.js'
import type { Pronunciations } from './pronunciations.js'

/**
 * What the text pipeline hands to synthesis. The user's text is parsed for expression tags and speaker
 * tags, normalized (when asked), and split into chunks. Every chunk keeps a map from the words the engine
 * will speak back to the words the user wrote, so timestamps point at the user's text.
 */

/** Prosody change for a span, from expression tags; neutral is `{ pitchSemitones: 0, rate: 1, volumeDb: 0 }`. */
export interface Expression {
  readonly pitchSemitones: number
  readonly rate: number
  readonly volumeDb: number
  /** Names of the tags in effect, for logs and docs. */
  readonly tags: readonly string[]
}

/**
 * One word as the user wrote it (`"$5"`), and where its spoken form (`"five dollars"`) sits in the chunk's
 * `spoken` text (end exclusive). `origStart`/`origEnd` index the user's full original text.
 */
export interface TokenMap {
  readonly text: string
  readonly origStart: number
  readonly origEnd: number
  readonly spokenStart: number
  readonly spokenEnd: number
}

export interface TextChunk {
  /** Text for the engine: normalized if asked, tags removed. */
  readonly spoken: string
  /** The user's text this chunk covers, tags removed (the SSE `content`). */
  readonly content: string
  /** Words in order; every spoken word lies inside exactly one token's spoken range. */
  readonly tokens: readonly TokenMap[]
  readonly expression: Expression
  /** Speaker index from `<|speaker:N|>` (0 when absent). */
  readonly speaker: number
  /**
   * Silence to insert after this chunk, in ms: the natural pause of the punctuation it ends at (clause 150,
   * sentence 300, paragraph 600; 0 after the last chunk) plus any pause tags (`[pause]`, `(break)`) after it.
   */
  readonly pauseAfterMs: number
  /** Language detected for this chunk's text (lower-case code, e.g. `en`, `zh`, `de`). */
  readonly language: string
  /** How `language` was decided and how sure (the `x-parla-language` header shows the first chunk's). */
  readonly languageDecision: LanguageDecision
}

export type TagDialect = 's1' | 's2-pro'
export type Latency = 'low' | 'balanced' | 'normal'

export interface TextPipelineOptions {
  readonly dialect: TagDialect
  readonly normalize: boolean
  /** 100..300 characters */
  readonly chunkLength: number
  /** 0..100 characters */
  readonly minChunkLength: number
  readonly latency: Latency
  /** Language forced by the chosen voice, if it speaks only one; otherwise detected per text. */
  readonly language?: string
  /**
   * The text's main language when it is too short to detect ("Well, " reads as Dutch): a live session
   * detects it on everything it has received. A sentence in another script still overrides it.
   */
  readonly languageHint?: string
  /** The server's default language (setting `defaultLanguage`): text stays in it unless confidently another. */
  readonly defaultLanguage?: string
  /** Languages of the voice the caller chose: detection prefers them where the text is ambiguous. */
  readonly voiceLanguages?: readonly string[]
  /** The operator's lexicon (setting `pronunciations`), applied whether or not `normalize` is on. */
  readonly pronunciations?: Pronunciations
}
