import { Type, type Static, type TSchema } from 'typebox'

/** `T | null`: every optional field of the Fish TTS request accepts nil (the Python SDKs send explicit nils). */
const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

/** Reference audio: MessagePack bin, a base64 string in JSON, or Node's `Buffer.toJSON()` shape. Checked by the service. */
export const ReferenceAudio = Type.Object(
  {
    audio: Type.Unknown({ description: 'MessagePack bin, base64 string, or {"type":"Buffer","data":[...]}' }),
    text: Type.Unknown({ description: 'transcript of the reference audio' }),
  },
  { additionalProperties: true },
)

export const TtsRequestBody = Type.Object(
  {
    text: Type.String({ description: 'Text to speak. May contain expression tags ((happy) for s1, [whispers] for s2-pro) and <|speaker:N|>, or be an SSML document (root <speak>; docs/ssml.md).' }),
    temperature: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Sampling temperature; used by engines with a sampler (none of the classic engines).' })),
    top_p: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Nucleus sampling; used by engines with a sampler.' })),
    references: Nullable(Type.Array(Type.Union([ReferenceAudio, Type.Array(ReferenceAudio)]), { description: 'Reference audio for instant voice cloning.' })),
    reference_id: Nullable(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'Voice model id; an array selects a voice per <|speaker:N|>.' })),
    prosody: Nullable(
      Type.Object({
        speed: Nullable(Type.Number({ minimum: 0.5, maximum: 2, description: 'Speaking rate; changes duration, not pitch.' })),
        volume: Nullable(Type.Number({ minimum: -20, maximum: 20, description: 'Gain in dB.' })),
        normalize_loudness: Nullable(Type.Boolean({ description: 'Bring output to a consistent loudness.' })),
      }),
    ),
    chunk_length: Nullable(Type.Integer({ minimum: 100, maximum: 300, description: 'Text chunk size in characters (default 200).' })),
    normalize: Nullable(Type.Boolean({ description: 'Expand numbers, dates, currencies, units (English, Chinese). Default true.' })),
    format: Nullable(Type.Union([Type.Literal('wav'), Type.Literal('pcm'), Type.Literal('mp3'), Type.Literal('opus')], { description: 'Default mp3.' })),
    sample_rate: Nullable(Type.Integer({ minimum: 8000, maximum: 48000, description: 'Hz; default 44100 (48000 for opus).' })),
    mp3_bitrate: Nullable(Type.Union([Type.Literal(64), Type.Literal(128), Type.Literal(192)], { description: 'kbps; default 128.' })),
    opus_bitrate: Nullable(
      Type.Union(
        [-1000, 24000, 32000, 48000, 64000, 24, 32, 48, 64].map((v) => Type.Literal(v)),
        { description: 'bps (-1000 = automatic, 24000..64000); the kbps values 24/32/48/64 are accepted too. Default automatic.' },
      ),
    ),
    latency: Nullable(Type.Union([Type.Literal('low'), Type.Literal('balanced'), Type.Literal('normal')], { description: 'Default balanced.' })),
    max_new_tokens: Nullable(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Used by engines with a token sampler.' })),
    repetition_penalty: Nullable(Type.Number({ minimum: 0, maximum: 10, description: 'Used by engines with a token sampler.' })),
    min_chunk_length: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'Minimum characters per chunk (default 50).' })),
    condition_on_previous_chunks: Nullable(Type.Boolean()),
    early_stop_threshold: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: true },
)

export type TtsRequestBody = Static<typeof TtsRequestBody>

export const ModelHeader = Type.Object(
  { model: Type.Optional(Type.String({ description: 's1 or s2-pro; missing or unknown means s2-pro' })) },
  { additionalProperties: true },
)
