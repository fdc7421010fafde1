import { join } from 'node:path'
import { WHISPER_LANGUAGES } from '../engines/asr/neural/languages.js'
import { readOnnxMetadata } from './onnx-metadata.js'
import { readOnnxSignature } from './onnx-signature.js'
import type { ModelPackage } from './types.js'

/**
 * A sherpa-onnx Whisper package (`<name>-encoder.onnx`, `<name>-decoder.onnx`, `<name>-tokens.txt`, as its
 * scripts/whisper/export-onnx.py writes them). The languages are the encoder metadata's `all_language_codes`
 * (the runtime ends its process on any other). What can be checked without loading is checked here: both files
 * whole, and the decoder made for this encoder (its caches' width and layer count, its vocabulary); a package
 * that fails is listed broken with the reason.
 */
export async function detectWhisper(base: { id: string; path: string }, files: { encoder: string; decoder: string; tokens: string }): Promise<ModelPackage> {
  const encoder = join(base.path, files.encoder)
  const decoder = join(base.path, files.decoder)
  const asr = { model: { whisper: { encoder, decoder, task: 'transcribe' } }, tokens: join(base.path, files.tokens) }
  const unreadable = (file: string, full: string) => (err: unknown) =>
    `${file} ${(err instanceof Error ? err.message : String(err)).replace(`${full} `, '')}; download the package again`
  const broken = (note: string): ModelPackage => ({ ...base, family: 'whisper', kind: 'asr', languages: [], speakers: [], runnable: false, broken: true, note })
  let meta: Record<string, string>
  try {
    meta = await readOnnxMetadata(encoder)
  } catch (err) {
    return broken(unreadable(files.encoder, encoder)(err))
  }
  let mismatch: string | undefined
  try {
    mismatch = await decoderMismatch(decoder, meta)
  } catch (err) {
    return broken(unreadable(files.decoder, decoder)(err))
  }
  if (mismatch) return broken(`${files.decoder} does not belong to ${files.encoder}: ${mismatch}; use the encoder and decoder of one release`)
  const multilingual = meta.is_multilingual !== undefined ? meta.is_multilingual === '1' : !/\.en-/.test(files.encoder)
  // The metadata lists the codes in no useful order; the tokenizer's order puts English, Chinese, German first.
  const rank = (c: string) => { const i = WHISPER_LANGUAGES.indexOf(c); return i < 0 ? WHISPER_LANGUAGES.length : i }
  const codes = meta.all_language_codes?.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean).sort((a, b) => rank(a) - rank(b))
  return {
    ...base, family: 'whisper', kind: 'asr', speakers: [], runnable: true, asr,
    languages: multilingual ? (codes?.length ? codes : WHISPER_LANGUAGES) : ['en'],
    ...(multilingual && { multiLanguage: true }),
  }
}

/** Why the decoder cannot run on this encoder's output, judged from its graph's shapes; undefined when it fits. */
async function decoderMismatch(decoder: string, meta: Record<string, string>): Promise<string | undefined> {
  const { inputs, outputs } = await readOnnxSignature(decoder)
  const expect = (what: string, dim: number | string | undefined, key: string) => {
    const want = Number(meta[key])
    if (meta[key] === undefined || typeof dim !== 'number' || dim === want) return undefined
    return `the decoder's ${what} is ${dim}, the encoder's ${key} is ${want}`
  }
  // The runtime sizes the decoder's self-attention caches from the encoder's metadata.
  const cache = inputs.find((v) => v.name === 'in_n_layer_self_k_cache')
  const logits = outputs.find((v) => v.name === 'logits')
  return expect('attention width', cache?.dims[3], 'n_text_state') ??
    expect('layer count', cache?.dims[0], 'n_text_layer') ??
    expect('context', cache?.dims[2], 'n_text_ctx') ??
    expect('vocabulary', logits?.dims[2], 'n_vocab')
}
