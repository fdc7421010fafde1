import { Type, type Static } from 'typebox'

/**
 * Every setting Parla reads, in one schema. Each key is also an environment variable
 * (`maxTextLength` → `PARLA_MAX_TEXT_LENGTH`) and a CLI flag (`--max-text-length`).
 * Layers, lowest first: these defaults < config file < `PARLA_*` environment < CLI flags.
 */
export const ConfigSchema = Type.Object(
  {
    /** Address to listen on. `0.0.0.0` to serve other machines. */
    host: Type.String({ default: '127.0.0.1', minLength: 1 }),
    /** TCP port to listen on. */
    port: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
    /** Where the database, blobs and the first API key live. */
    dataDir: Type.String({ default: './data', minLength: 1 }),
    /** Database URL; empty means SQLite at `<dataDir>/parla.db`. `sqlite:<path>` picks another file. */
    databaseUrl: Type.String({ default: '' }),
    /** pino log level. */
    logLevel: Type.Union(
      [Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')],
      { default: 'info' },
    ),
    /** Largest JSON / MessagePack request body, in bytes (TTS requests with inline references). */
    maxBodyBytes: Type.Integer({ default: 32 * 1024 * 1024, minimum: 1024 }),
    /** Largest single uploaded file on `/model` (voice samples, cover image), in bytes. */
    maxUploadBytes: Type.Integer({ default: 50 * 1024 * 1024, minimum: 1024 }),
    /** Most voice sample files in one `POST /model`. */
    maxUploadFiles: Type.Integer({ default: 20, minimum: 1 }),
    /** Largest audio file accepted by `POST /v1/asr`, in bytes (spec: 20 MB). */
    asrMaxBytes: Type.Integer({ default: 20 * 1000 * 1000, minimum: 1024 }),
    /** Longest `text` accepted by the TTS endpoints, in characters. */
    maxTextLength: Type.Integer({ default: 20_000, minimum: 1 }),
    /** Most inline `references` in one TTS request. */
    maxReferences: Type.Integer({ default: 8, minimum: 1 }),
    /** Largest single inline reference audio, in bytes. */
    maxReferenceBytes: Type.Integer({ default: 10 * 1024 * 1024, minimum: 1024 }),
    /** Number of long-lived festival processes; 0 means one per CPU core. */
    festivalProcesses: Type.Integer({ default: 0, minimum: 0, maximum: 64 }),
    /** Number of ASR decoder workers; 0 means one per CPU core. */
    asrWorkers: Type.Integer({ default: 0, minimum: 0, maximum: 64 }),
    /**
     * `/v1/asr` requests decoded and transcribed at once; the rest wait in line. 0 means one per ASR worker.
     * Each one holds its decoded audio (16-bit, 16 kHz: ~19 MB per 10 minutes).
     */
    asrConcurrency: Type.Integer({ default: 0, minimum: 0, maximum: 64 }),
    /** A WebSocket session with no frame for this many seconds is closed. */
    liveIdleTimeoutSec: Type.Integer({ default: 120, minimum: 1 }),
    /** Minimum voice sample duration for `POST /model`, in seconds. */
    minSampleSeconds: Type.Number({ default: 1, minimum: 0 }),
    /** Maximum voice sample duration for `POST /model`, in seconds. */
    maxSampleSeconds: Type.Number({ default: 300, minimum: 1 }),
    /**
     * On SIGTERM/SIGINT, how long requests, streams and live sockets under way may take to finish, in
     * seconds, before the server cuts them and exits. A second signal exits at once.
     */
    shutdownTimeoutSec: Type.Number({ default: 30, minimum: 0 }),
  },
  { additionalProperties: false },
)

export type Config = Readonly<Static<typeof ConfigSchema>>
