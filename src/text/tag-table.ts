/**
 * The one table of expression tags. Both dialects look names up here: s1 writes them in parentheses,
 * s2-pro in square brackets. docs/expression-tags.md mirrors this table; change both together.
 *
 * Columns: canonical name, kind, pitch (semitones), rate (factor), volume (dB), pause (ms), aliases.
 * Values are deliberately mild: they colour a neutral engine's delivery, they do not act it.
 */
export type TagKind = 'emotion' | 'tone' | 'effect' | 'pause'

export interface TagEntry {
  readonly name: string
  readonly kind: TagKind
  readonly pitchSemitones: number
  readonly rate: number
  readonly volumeDb: number
  /** Silence added where the tag stands; only `pause` tags have one. */
  readonly pauseMs: number
}

type Row = readonly [name: string, kind: TagKind, pitch: number, rate: number, volume: number, pause?: number,
  aliases?: readonly string[]]

const ROWS: readonly Row[] = [
  // Basic emotions (Fish s1 list).
  ['happy', 'emotion', 1.5, 1.05, 1, 0, ['cheerful', 'joy']],
  ['sad', 'emotion', -1.5, 0.9, -2, 0, ['sadly', 'sorrowful']],
  ['angry', 'emotion', 1, 1.08, 4, 0, ['angrily', 'annoyed']],
  ['excited', 'emotion', 2, 1.12, 3, 0, ['excitedly', 'enthusiastic']],
  ['calm', 'emotion', -0.5, 0.92, -2, 0, ['calmly']],
  ['nervous', 'emotion', 1, 1.08, -1, 0, ['nervously']],
  ['confident', 'emotion', -0.5, 0.98, 2, 0],
  ['surprised', 'emotion', 2.5, 1.05, 2, 0],
  ['satisfied', 'emotion', 0.5, 0.97, 0],
  ['delighted', 'emotion', 2, 1.08, 2],
  ['scared', 'emotion', 1.5, 1.12, -2, 0, ['afraid', 'fearful', 'terrified']],
  ['worried', 'emotion', 0.5, 0.95, -2, 0, ['concerned']],
  ['upset', 'emotion', 1, 1.05, 2],
  ['frustrated', 'emotion', 0.5, 1.05, 2],
  ['depressed', 'emotion', -2.5, 0.85, -4],
  ['empathetic', 'emotion', -0.5, 0.92, -1],
  ['embarrassed', 'emotion', 0.5, 0.95, -3],
  ['disgusted', 'emotion', -1, 0.95, 1],
  ['moved', 'emotion', -0.5, 0.9, -1, 0, ['touched']],
  ['proud', 'emotion', 0.5, 0.98, 2],
  ['relaxed', 'emotion', -1, 0.9, -2],
  ['grateful', 'emotion', 1, 0.97, 1, 0, ['thankful']],
  ['curious', 'emotion', 1.5, 1, 0],
  ['sarcastic', 'emotion', -0.5, 0.93, 1, 0, ['sarcastically']],
  // Advanced emotions (Fish s1 lists, both published variants).
  ['disdainful', 'emotion', -1, 0.93, 0],
  ['unhappy', 'emotion', -1, 0.93, -1],
  ['anxious', 'emotion', 1, 1.1, -1],
  ['hysterical', 'emotion', 3, 1.2, 5],
  ['indifferent', 'emotion', -1, 0.95, -2],
  ['uncertain', 'emotion', 0.5, 0.93, -2, 0, ['unsure']],
  ['doubtful', 'emotion', 0, 0.93, -1, 0, ['skeptical']],
  ['confused', 'emotion', 1, 0.93, -1],
  ['disappointed', 'emotion', -1.5, 0.9, -2],
  ['regretful', 'emotion', -1.5, 0.9, -2],
  ['guilty', 'emotion', -1, 0.92, -3],
  ['ashamed', 'emotion', -1, 0.9, -4],
  ['jealous', 'emotion', 0, 1, 1],
  ['envious', 'emotion', 0, 1, 0],
  ['hopeful', 'emotion', 1, 1, 0],
  ['optimistic', 'emotion', 1, 1.03, 1],
  ['pessimistic', 'emotion', -1, 0.93, -1],
  ['nostalgic', 'emotion', -0.5, 0.9, -1],
  ['lonely', 'emotion', -1.5, 0.88, -3],
  ['bored', 'emotion', -1.5, 0.9, -2],
  ['contemptuous', 'emotion', -1, 0.95, 1],
  ['sympathetic', 'emotion', -0.5, 0.93, -1],
  ['compassionate', 'emotion', -0.5, 0.92, -1],
  ['determined', 'emotion', 0, 1, 3],
  ['resigned', 'emotion', -1.5, 0.9, -3],
  ['impatient', 'emotion', 0.5, 1.12, 2],
  ['scornful', 'emotion', -1, 0.95, 1],
  ['panicked', 'emotion', 2.5, 1.2, 3, 0, ['panicking', 'panic']],
  ['furious', 'emotion', 1.5, 1.1, 6],
  ['reluctant', 'emotion', -0.5, 0.9, -2],
  ['keen', 'emotion', 1, 1.05, 1, 0, ['eager']],
  ['interested', 'emotion', 1, 1, 0],
  ['joyful', 'emotion', 2, 1.08, 2],
  ['disapproving', 'emotion', -1, 0.95, 1],
  ['negative', 'emotion', -1, 0.95, 0],
  ['denying', 'emotion', 0, 1.03, 2],
  ['astonished', 'emotion', 2.5, 1, 2, 0, ['amazed', 'shocked']],
  ['serious', 'emotion', -1, 0.95, 1],
  ['conciliative', 'emotion', -0.5, 0.93, -1, 0, ['conciliatory']],
  ['comforting', 'emotion', -0.5, 0.9, -2, 0, ['reassuring']],
  ['sincere', 'emotion', 0, 0.95, 0],
  ['sneering', 'emotion', -0.5, 0.95, 1],
  ['hesitating', 'emotion', 0, 0.85, -2, 0, ['hesitant', 'hesitates']],
  ['yielding', 'emotion', -0.5, 0.93, -2],
  ['painful', 'emotion', -1, 0.88, -1, 0, ['in pain']],
  ['awkward', 'emotion', 0.5, 0.95, -2],
  ['amused', 'emotion', 1, 1.03, 1],
  // Tone markers.
  ['in a hurry tone', 'tone', 0.5, 1.25, 1, 0, ['hurried', 'rushed', 'in a hurry']],
  ['shouting', 'tone', 2, 1.05, 8, 0, ['shout', 'shouts', 'yelling', 'loudly']],
  ['screaming', 'tone', 4, 1.1, 10, 0, ['scream', 'screams']],
  ['whispering', 'tone', -1, 0.9, -10, 0, ['whisper', 'whispers', 'whispered']],
  ['soft tone', 'tone', -0.5, 0.93, -5, 0, ['soft', 'softly', 'gently', 'quietly']],
  ['emphasis', 'tone', 1, 0.92, 3, 0, ['emphasized', 'emphatic', 'stressed']],
  ['slow', 'tone', 0, 0.8, 0, 0, ['slowly', 'slows down']],
  ['fast', 'tone', 0, 1.25, 0, 0, ['quickly', 'fast-paced']],
  ['low voice', 'tone', -3, 0.95, -3, 0, ['low', 'deep voice']],
  ['high pitch', 'tone', 3, 1, 0, 0, ['high voice', 'high-pitched']],
  ['loud', 'tone', 0.5, 1, 6, 0, ['volume up']],
  ['quiet', 'tone', 0, 0.97, -6, 0, ['volume down']],
  // Audio effects (kept as prosody: a neutral engine cannot laugh, it can only sound like it).
  ['laughing', 'effect', 1.5, 1.05, 1, 0, ['laughs', 'laugh', 'laughter', 'giggling', 'giggles']],
  ['chuckling', 'effect', 1, 1, 0, 0, ['chuckles', 'chuckle']],
  ['sobbing', 'effect', -1, 0.85, -2, 0, ['sobs', 'crying', 'cries']],
  ['crying loudly', 'effect', -0.5, 0.85, 3],
  ['sighing', 'effect', -1, 0.9, -2, 0, ['sigh', 'sighs']],
  ['groaning', 'effect', -1.5, 0.9, 0, 0, ['groans', 'groan']],
  ['panting', 'effect', 0.5, 1.1, -1, 0, ['pants', 'out of breath']],
  ['gasping', 'effect', 1.5, 1.05, 0, 0, ['gasps', 'gasp']],
  ['yawning', 'effect', -1, 0.85, -2, 0, ['yawns', 'yawn']],
  ['snoring', 'effect', -2, 0.8, -4],
  ['crowd laughing', 'effect', 0, 1, 0],
  ['background laughter', 'effect', 0, 1, 0],
  ['audience laughing', 'effect', 0, 1, 0],
  // Pauses: silence where the tag stands; no prosody.
  ['pause', 'pause', 0, 1, 0, 500],
  ['short pause', 'pause', 0, 1, 0, 250, ['brief pause']],
  ['long pause', 'pause', 0, 1, 0, 1000],
  ['break', 'pause', 0, 1, 0, 400, ['beat']],
  ['long break', 'pause', 0, 1, 0, 1000],
  ['breath', 'pause', 0, 1, 0, 300, ['breathes', 'inhale', 'exhale', 'breathing']],
]

function entry(row: Row): TagEntry {
  const [name, kind, pitchSemitones, rate, volumeDb, pauseMs = 0] = row
  return { name, kind, pitchSemitones, rate, volumeDb, pauseMs }
}

/** Every recognised tag, in table order (for docs and tests). */
export const TAG_ENTRIES: readonly TagEntry[] = ROWS.map(entry)

/** Lower-case name or alias (words separated by single spaces) to its entry. */
export const TAG_LOOKUP: ReadonlyMap<string, TagEntry> = new Map(
  ROWS.flatMap((row, i) => [row[0], ...(row[6] ?? [])].map((n) => [n, TAG_ENTRIES[i] as TagEntry] as const)),
)

/** Intensity words allowed before a name (`(very sad)`, `[slightly nervous]`), and how they scale the effect. */
export const TAG_MODIFIERS: ReadonlyMap<string, number> = new Map([
  ['slightly', 0.5], ['a bit', 0.5], ['a little', 0.5], ['somewhat', 0.5], ['mildly', 0.5],
  ['very', 1.5], ['really', 1.5], ['extremely', 1.5], ['super', 1.5], ['quite', 1.5],
])

/** Combined prosody is clamped so stacked tags never leave a range engines render well. */
export const PROSODY_LIMITS = {
  pitchSemitones: [-8, 8],
  rate: [0.5, 2],
  volumeDb: [-20, 12],
} as const

/** Longest silence a `[pause 3s]`-style tag may ask for. */
export const MAX_PAUSE_MS = 5000
