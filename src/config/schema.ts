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
    /**
     * Integrated loudness (BS.1770 LUFS) that speech is brought to when a request leaves `normalize_loudness`
     * on (the default). -20 suits most speech apps; -23 / -24 is broadcast (EBU R128 / ATSC A/85), -16 podcasts.
     */
    loudnessTarget: Type.Number({ default: -20, minimum: -40, maximum: -10 }),
    /**
     * A JSON file of words and how to say them (`{"nginx": "engine x"}`), for names and jargon the voices get
     * wrong; read at start. Empty: none.
     */
    pronunciations: Type.String({ default: '' }),
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
    /**
     * A WebSocket session with no frame, ping or pong for this many seconds is closed. Long enough for pooled
     * sockets kept open between replies (LiveKit keeps one up to 300 s).
     */
    liveIdleTimeoutSec: Type.Number({ default: 300, minimum: 0.05 }),
    /** Minimum voice sample duration for `POST /model`, in seconds. */
    minSampleSeconds: Type.Number({ default: 1, minimum: 0 }),
    /** Maximum voice sample duration for `POST /model`, in seconds. */
    maxSampleSeconds: Type.Number({ default: 300, minimum: 1 }),
    /**
     * The server pings each WebSocket this often, in seconds; a peer that has not answered by the next ping
     * is gone (a dead network path, a suspended laptop) and its socket is dropped. 0 turns pings off.
     */
    livePingIntervalSec: Type.Number({ default: 30, minimum: 0 }),
    /** TTS naming a voice model that is still training waits this long for it, in seconds, before a 409. */
    trainingWaitSec: Type.Number({ default: 30, minimum: 0, maximum: 600 }),
    /**
     * Extra voice aliases, `id=model,id=model`: a `reference_id` Parla does not have speaks with the named
     * model instead (added to the shipped aliases for the frameworks' default cloud voices; `id=` drops one).
     */
    voiceAliases: Type.String({ default: '' }),
    /** Folder of the operator's neural model packages (docs/models.md); empty means `<dataDir>/models`. */
    modelsDir: Type.String({ default: '' }),
    /**
     * Base URL `parla models pull <catalog name>` fetches from instead of each file's publisher, keeping the
     * publisher's path (`https://huggingface.co/rhasspy/…` → `<mirror>/rhasspy/…`): a proxy or a local mirror.
     */
    modelsMirror: Type.String({ default: '' }),
    /** Neural runtime processes: how many neural syntheses run at once (each loads the models it serves). */
    neuralProcesses: Type.Integer({ default: 1, minimum: 1, maximum: 64 }),
    /**
     * Default voice by `model` header and language, for requests that name none: `<model>[:<language>]=<voice
     * model id>` entries, `*` for any header (docs/models.md). Empty: the classic engines' defaults.
     */
    ttsRoutes: Type.String({ default: '' }),
    /** A Fish-compatible server (fish-speech api_server, another Parla, the Fish cloud) for the `upstream` engine; empty: none. */
    upstreamUrl: Type.String({ default: '' }),
    /** Bearer key sent to the upstream. */
    upstreamKey: Type.String({ default: '' }),
    /** `model` header sent to the upstream. */
    upstreamModel: Type.String({ default: 's2-pro' }),
    /** Upstream voice model ids offered as `upstream-<id>` voices (comma-separated), besides `upstream-default`. */
    upstreamVoices: Type.String({ default: '' }),
    /** Languages the upstream speaks (comma-separated), for language routing. */
    upstreamLanguages: Type.String({ default: 'en,zh,ja,ko,de,fr,es,ar,ru,nl,it,pl,pt' }),
    /** Sample rate Parla expects from the upstream (fish-speech: 44100); other rates are resampled. */
    upstreamSampleRate: Type.Integer({ default: 44_100, minimum: 8000, maximum: 48_000 }),
    /** Seconds to wait for the upstream's first byte before retrying. */
    upstreamTimeoutSec: Type.Number({ default: 30, minimum: 1 }),
    /** Retries before the first byte (network errors, 429, 5xx). */
    upstreamRetries: Type.Integer({ default: 2, minimum: 0, maximum: 10 }),
    /**
     * Engine for `/v1/asr`: `pocketsphinx` (or empty), the id of an ASR package in `modelsDir` (Whisper,
     * Moonshine, NeMo CTC), or per language: `de=<engine> *=<engine>` (docs/models.md).
     */
    asrEngine: Type.String({ default: '' }),
    /** Inference threads per neural synthesis. */
    neuralThreads: Type.Integer({ default: 1, minimum: 1, maximum: 64 }),
    /**
     * Seconds without work after which the neural runtime processes stop and give their models' memory back
     * (0: never); the next request starts them again and waits for its model to load.
     */
    neuralIdleSec: Type.Number({ default: 0, minimum: 0 }),
    /** A request whose line and headers have not all arrived this many seconds after it began gets a 408. */
    headersTimeoutSec: Type.Integer({ default: 30, minimum: 1 }),
    /** A request body with no byte for this many seconds gets a 408 and its connection closed. */
    bodyIdleTimeoutSec: Type.Integer({ default: 30, minimum: 1 }),
    /**
     * Longest time to receive a whole request (headers and body), in seconds; responses are not bounded.
     * The default passes a 20 MB upload at about 180 kbit/s.
     */
    bodyTimeoutSec: Type.Integer({ default: 900, minimum: 1 }),
    /**
     * OpenAI voice names (`/v1/audio/speech` `voice`) to Parla voice model ids, as `name=id` pairs separated by
     * commas, e.g. `alloy=festival-slt,onyx=my-cloned-voice`; merged over the built-in table in docs/protocols.md.
     */
    openaiVoices: Type.String({ default: '' }),
    /** TCP port of the Wyoming server (Home Assistant); 0 means off. Wyoming has no authentication. */
    wyomingPort: Type.Integer({ default: 0, minimum: 0, maximum: 65535 }),
    /** Address the Wyoming server binds to; loopback unless you mean every machine on the network to use it. */
    wyomingHost: Type.String({ default: '127.0.0.1', minLength: 1 }),
    /**
     * Announce the Wyoming server on mDNS (`_wyoming._tcp`, zeroconf) so Home Assistant discovers it; only when
     * it listens beyond loopback. Turn off on networks where you do not want it advertised.
     */
    wyomingZeroconf: Type.Boolean({ default: true }),
    /** The name Home Assistant shows for the discovered server; empty means `parla-<host name>`. */
    wyomingZeroconfName: Type.String({ default: '', maxLength: 63 }),
    /**
     * Language of text sent without a voice that decides it: text stays in it unless it confidently is another
     * (numbers, names and short phrases never move it). A lower-case code such as `en`, `de`, `zh`.
     */
    defaultLanguage: Type.String({ default: 'en', pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$' }),
    /**
     * On SIGTERM/SIGINT, how long requests, streams and live sockets under way may take to finish, in
     * seconds, before the server cuts them and exits. A second signal exits at once.
     */
    shutdownTimeoutSec: Type.Number({ default: 30, minimum: 0 }),
    /**
     * Streams (HTTP TTS, SSE, live sockets while speaking, Wyoming) this node speaks at once; more wait in line
     * (`admissionQueueLength`, `admissionWaitSec`), then get 503 with `Retry-After`. 0: automatic, from the
     * cores and the measured engine cost per second of speech, so every admitted stream keeps ahead of its
     * listener (docs/operations.md).
     */
    maxStreams: Type.Integer({ default: 0, minimum: 0, maximum: 100_000 }),
    /** Admitted streams still waiting for their first audio (a burst of new ones); 0: automatic. */
    maxStartingStreams: Type.Integer({ default: 0, minimum: 0, maximum: 100_000 }),
    /** Streams that may wait for a place when the node is full; beyond it, 503 at once. */
    admissionQueueLength: Type.Integer({ default: 64, minimum: 0, maximum: 100_000 }),
    /**
     * Longest wait in that line, in seconds, before a 503 with `Retry-After`. Work expected to take less than
     * this (and than 1 s) is served beyond the limits instead: at once within `cores × admissionWaitSec` of
     * such work, after its wait within `cores × 1 s` (at the cap it waits once more as long, at most 1 s, then
     * is refused); live utterances wait for their latency budget if longer
     * (docs/operations.md).
     */
    admissionWaitSec: Type.Number({ default: 0.5, minimum: 0, maximum: 60 }),
    /**
     * Bearer token for `GET /metrics`. Empty: `/metrics` answers loopback clients only (a Prometheus on the
     * same host or behind the node's own proxy); set it to scrape from other machines.
     */
    metricsToken: Type.String({ default: '' }),
    /**
     * Where voice samples and covers live: `fs` (`<dataDir>/blobs`, one node), `database` (rows in the database,
     * shared by every node on one PostgreSQL), or `auto`: `database` when `databaseUrl` is PostgreSQL, else `fs`.
     */
    blobStore: Type.Union([Type.Literal('auto'), Type.Literal('fs'), Type.Literal('database')], { default: 'auto' }),
    /** Most PostgreSQL connections each node keeps open. */
    databasePoolSize: Type.Integer({ default: 10, minimum: 1, maximum: 200 }),
    /**
     * Background jobs (voice training) are leased by one node, renewed every third of this, in seconds; a node
     * that dies mid-job loses the job to another node after this long.
     */
    jobLeaseSec: Type.Number({ default: 30, minimum: 0.3, maximum: 3600 }),
    /**
     * Quota defaults for accounts that set no limit of their own (`parla keys limits`); 0 means unlimited.
     * Requests under way plus open live sockets, per account, across all nodes on the database (docs/quotas.md).
     */
    quotaConcurrency: Type.Integer({ default: 0, minimum: 0, maximum: 2_147_483_647 }),
    /** Requests per minute per account (every TTS, ASR request and live socket counts one); 0: unlimited. */
    quotaRequestsPerMinute: Type.Integer({ default: 0, minimum: 0, maximum: 2_147_483_647 }),
    /** TTS text characters per account per calendar month (UTC); 0: unlimited. */
    quotaCharactersPerMonth: Type.Integer({ default: 0, minimum: 0, maximum: 2_147_483_647 }),
    /** Seconds of audio transcribed per account per calendar month (UTC); 0: unlimited. */
    quotaAudioSecondsPerMonth: Type.Integer({ default: 0, minimum: 0, maximum: 2_147_483_647 }),
    /**
     * A concurrency slot is a lease renewed every third of this, in seconds: the slots of a node that dies
     * (kill -9, power loss) free themselves within it. Node clocks must agree to well within it (NTP).
     */
    quotaLeaseSec: Type.Number({ default: 30, minimum: 1, maximum: 3600 }),
    /**
     * Speech recognition requests that may wait for a decoder (`asrConcurrency`); beyond it, 503 with
     * `Retry-After` at once. Each waiting request holds its upload (up to `asrMaxBytes`), so this bounds memory.
     */
    asrQueueLength: Type.Integer({ default: 16, minimum: 0, maximum: 100_000 }),
    /**
     * Longest wait for a decoder before the 503, in seconds. Transcription is batch work, so requests wait
     * rather than fail; lower it where clients would rather retry elsewhere at once.
     */
    asrWaitSec: Type.Number({ default: 30, minimum: 0, maximum: 3600 }),
  },
  { additionalProperties: false },
)

export type Config = Readonly<Static<typeof ConfigSchema>>
