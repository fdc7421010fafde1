/** One file of a catalog package, with what its publisher says about it. */
export interface CatalogFile {
  /** Where the publisher serves it (rewritten onto `modelsMirror` when one is set). */
  readonly url: string
  /** Bytes, as the publisher lists them; absent when the publisher gives no size (then Content-Length is checked). */
  readonly size?: number
  /** MD5 (hex) from the publisher's own index (Piper's voices.json). */
  readonly md5?: string
  /** SHA-256 (hex) where the publisher gives one. */
  readonly sha256?: string
}

/** A well-known model package `parla models pull <name>` can fetch (src/models/catalog-data.ts). */
export interface CatalogEntry {
  /** The published name, also the folder it is installed as in `modelsDir`. */
  readonly name: string
  /** Shorter names `pull` also takes. */
  readonly aliases?: readonly string[]
  readonly kind: 'tts' | 'asr' | 'vad'
  readonly family: 'piper' | 'kokoro' | 'zipvoice' | 'whisper' | 'moonshine' | 'streaming-transducer' | 'silero-vad'
  /** Lower-case language codes; `mul` for a model of many languages (a multilingual Whisper). */
  readonly languages: readonly string[]
  readonly speakers?: number
  /** The licence as the publisher states it, or where to read it. */
  readonly licence: string
  readonly licenceUrl?: string
  /**
   * The package: one release archive (unpacked; its top folder is the package), or loose files (a Piper voice's
   * `.onnx` and `.onnx.json`) put into a folder named `name`.
   */
  readonly files: readonly CatalogFile[]
  /** Files the package needs that its publisher ships apart, added to the package folder (ZipVoice's vocoder). */
  readonly extras?: readonly CatalogFile[]
}
