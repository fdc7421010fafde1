import { join } from 'node:path'
import { languageCode } from './languages.js'
import { readOnnxMetadata } from './onnx-metadata.js'
import type { ModelPackage } from './types.js'

/**
 * Encoder types sherpa-onnx runs as streaming (online) transducers, by the encoder's `model_type` metadata.
 * Only `zipformer2` was built by its project's own code (icefall's export-onnx-streaming.py) and run here.
 */
const STREAMING_TYPES = new Set(['zipformer2', 'zipformer', 'conformer', 'lstm'])
const UNTESTED = 'only the streaming Zipformer (zipformer2) export of icefall was built and run by Parla\'s tests; this encoder type was not'

/**
 * A transducer package as sherpa-onnx publishes its `sherpa-onnx-streaming-zipformer-*` models: `encoder-*.onnx`,
 * `decoder-*.onnx`, `joiner-*.onnx` and `tokens.txt`. Streaming encoders say how they chunk the audio in their
 * metadata (`T`/`decode_chunk_len`, or a streaming `model_type`); a transducer without it is an offline one, which
 * Parla does not run. The languages come from the package name (`-en-`, `-zh-en-`, `-korean-`), English when it
 * names none.
 */
export async function detectTransducer(base: { id: string; path: string }, files: { encoder: string; decoder: string; joiner: string }): Promise<ModelPackage> {
  const encoder = join(base.path, files.encoder)
  const common = { ...base, family: 'streaming-transducer' as const, kind: 'asr' as const, speakers: [], languages: languagesOf(base.id) }
  let meta: Record<string, string>
  try {
    meta = await readOnnxMetadata(encoder)
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(`${encoder} `, '')
    return { ...common, runnable: false, broken: true, note: `${files.encoder} ${why}; download the package again` }
  }
  const type = meta.model_type ?? ''
  const streaming = meta.T !== undefined || meta.decode_chunk_len !== undefined || (type !== '' && STREAMING_TYPES.has(type))
  if (!streaming) {
    return { ...common, runnable: false, note: 'an offline (non-streaming) transducer: Parla runs streaming transducers (sherpa-onnx-streaming-* packages) only' }
  }
  return {
    ...common,
    runnable: true,
    ...(type !== 'zipformer2' && { untested: UNTESTED }),
    asr: {
      model: { transducer: { encoder, decoder: join(base.path, files.decoder), joiner: join(base.path, files.joiner) } },
      tokens: join(base.path, 'tokens.txt'),
      online: true,
    },
  }
}

/** Language codes in a package name's parts: `sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20` → zh, en. */
function languagesOf(id: string): string[] {
  const parts = id.toLowerCase().split(/[-_.]/).filter((p) => /^[a-z]{2}$/.test(p) || /^[a-z]{4,}$/.test(p))
  const codes = parts.map((p) => (p.length === 2 ? KNOWN.has(p) ? p : undefined : languageCode(p))).filter((c): c is string => !!c)
  return codes.length ? [...new Set(codes)] : ['en']
}
/** Two-letter parts that are languages (not `ar`… parts of other words are not two letters long). */
const KNOWN = new Set(['en', 'zh', 'de', 'fr', 'es', 'it', 'pt', 'ru', 'ja', 'ko', 'nl', 'pl', 'uk', 'ar', 'tr', 'cs', 'sv', 'fi', 'el', 'hi', 'vi', 'th', 'id', 'bn', 'fa'])
