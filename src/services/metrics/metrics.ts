import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { PoolLoad } from '../../engines/tts/pool.js'
import { neuralProcessExits } from '../../engines/neural/host.js'
import type { Admission, StreamSurface } from '../admission/admission.js'

/** What the scrape-time gauges read; each returns the figure now. */
export interface MetricSources {
  readonly engines: () => readonly { readonly id: string; load?(): PoolLoad }[]
  readonly admission: Admission
  /** Real-time factor per engine (worker-seconds per audio second), measured. */
  readonly realTimeFactor: () => ReadonlyMap<string, number>
  readonly asr: () => { active: number; waiting: number; limit: number }
  /** Voice models per state (`ready`, `training`, `failed`, …), the node's view of background work. */
  readonly modelStates: () => Promise<ReadonlyMap<string, number>>
  /** Log lines dropped since start because standard output's reader was gone or did not keep up. */
  readonly logLinesDropped?: () => number
}

/** The counters and histograms code increments; the gauges are read from `MetricSources` at scrape time. */
export interface Metrics {
  readonly httpRequests: Counter<'route' | 'method' | 'status'>
  readonly httpDuration: Histogram<'route' | 'method' | 'status'>
  /** Seconds from asking for a stream to its first audio leaving, by surface. */
  readonly firstAudio: Histogram<'surface'>
  readonly admissionRejections: Counter<'surface'>
  /** Admitted streams whose audio came after their listener ran out (each cuts the admission limits). */
  readonly streamsBehind: Counter<'surface'>
  /**
   * Requests refused by a per-account quota, by the limit that refused them (`concurrency`, `rpm`,
   * `characters`, …). The quota code calls `deps.metrics.quotaRejections.inc({ limit })`.
   */
  readonly quotaRejections: Counter<'limit'>
  /** Speech recognition requests turned away with 503: the decoders' line was full or the wait ran out. */
  readonly asrRejections: Counter
  readonly liveSockets: Gauge
  /** The Prometheus text exposition of everything. */
  text(): Promise<string>
  readonly contentType: string
}

// Process metrics (CPU, RSS, heap, event loop lag) are the process's, not one server's: registered once, at
// the first scrape (CLI commands build `Deps` too and never serve /metrics).
let processRegistry: Registry | undefined
const processMetrics = (): Registry => (processRegistry ??= (() => {
  const r = new Registry()
  collectDefaultMetrics({ register: r, prefix: 'parla_' })
  return r
})())

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry()
  const registers = [registry]
  const seconds = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
  const route = ['route', 'method', 'status'] as const
  const metrics = {
    httpRequests: new Counter({ name: 'parla_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', labelNames: route, registers }),
    httpDuration: new Histogram({ name: 'parla_http_request_duration_seconds', help: 'HTTP request time until the response ended (whole streams included)', labelNames: route, buckets: seconds, registers }),
    firstAudio: new Histogram({ name: 'parla_first_audio_seconds', help: 'Time from asking for a stream to its first audio leaving, by surface', labelNames: ['surface'], buckets: seconds, registers }),
    admissionRejections: new Counter({ name: 'parla_admission_rejections_total', help: 'Streams turned away with 503 because the node was at capacity', labelNames: ['surface'], registers }),
    streamsBehind: new Counter({ name: 'parla_streams_behind_total', help: 'Times an admitted stream\'s audio came after its listener ran out (each cuts the admission limits for a while)', labelNames: ['surface'], registers }),
    quotaRejections: new Counter({ name: 'parla_quota_rejections_total', help: 'Requests refused by a per-account quota, by limit', labelNames: ['limit'], registers }),
    asrRejections: new Counter({ name: 'parla_asr_rejections_total', help: 'Speech recognition requests turned away with 503 because every decoder was busy', registers }),
    liveSockets: new Gauge({ name: 'parla_live_sockets_open', help: 'Open /v1/tts/live WebSockets', registers }),
  }
  gauges(registers, sources)
  new Counter({
    name: 'parla_neural_process_exits_total',
    help: 'Neural runtime processes (TTS or ASR) that ended while serving, not stopped by Parla; each is replaced (a package\'s check process ending is its verdict, not counted)',
    registers,
    collect() {
      this.reset()
      this.inc(neuralProcessExits())
    },
  })
  const dropped = sources.logLinesDropped
  if (dropped) {
    new Counter({
      name: 'parla_log_lines_dropped_total',
      help: 'Log lines dropped because standard output\'s reader was gone or did not keep up (at most 1 MiB waits for it)',
      registers,
      collect() {
        this.reset()
        this.inc(dropped())
      },
    })
  }
  return {
    ...metrics,
    contentType: registry.contentType,
    text: async () => `${await registry.metrics()}\n${await processMetrics().metrics()}`,
  }
}

function gauges(registers: Registry[], s: MetricSources): void {
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => void | Promise<void>) =>
    new Gauge({ name, help, labelNames, registers, async collect() { this.reset(); await collect(this) } })
  gauge('parla_engine_workers', 'TTS engine processes or workers, by engine and state (busy, idle)', ['engine', 'state'], (g) => {
    for (const e of s.engines()) {
      const load = e.load?.()
      if (!load) continue
      g.set({ engine: e.id, state: 'busy' }, load.busy)
      g.set({ engine: e.id, state: 'idle' }, load.size - load.busy)
    }
  })
  gauge('parla_engine_queued', 'Engine calls waiting for a TTS process or worker', ['engine'], (g) => {
    for (const e of s.engines()) if (e.load) g.set({ engine: e.id }, e.load().queued)
  })
  gauge('parla_engine_real_time_factor', 'Measured worker-seconds per second of speech, by engine (below 1 keeps pace)', ['engine'], (g) => {
    for (const [engine, rtf] of s.realTimeFactor()) g.set({ engine }, rtf)
  })
  gauge('parla_streams_open', 'Streams speaking now (admitted), by surface', ['surface'], (g) => {
    for (const [surface, n] of Object.entries(s.admission.snapshot().running)) g.set({ surface: surface as StreamSurface }, n)
  })
  gauge('parla_admission_queued', 'Streams waiting for a place', [], (g) => g.set(s.admission.snapshot().queued))
  gauge('parla_admission_starting', 'Admitted streams whose first audio has not left yet', [], (g) => g.set(s.admission.snapshot().starting))
  gauge('parla_admission_limit', 'Admission limits now (kind: streams, starting)', ['kind'], (g) => {
    const { limits } = s.admission.snapshot()
    g.set({ kind: 'streams' }, limits.streams)
    g.set({ kind: 'starting' }, limits.starting)
  })
  gauge('parla_asr_requests', 'Speech recognition requests, by state (active, queued)', ['state'], (g) => {
    const load = s.asr()
    g.set({ state: 'active' }, load.active)
    g.set({ state: 'queued' }, load.waiting)
  })
  gauge('parla_voice_models', 'Voice models by state (training is the background job queue)', ['state'], async (g) => {
    // A database that does not answer leaves the series out; /readyz reports it.
    const states = await s.modelStates().catch(() => new Map<string, number>())
    for (const [state, n] of states) g.set({ state }, n)
  })
}
