import { resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { RESTART_CLOSE_CODE } from './api/fish/live.js'
import { startWyomingServer, type WyomingServer } from './api/wyoming/server.js'
import { buildApp } from './app.js'
import type { Config } from './config/schema.js'
import { createDeps, type Deps, type DepsOverrides } from './deps.js'
import { refreshBuiltinVoices, voiceStateFollower } from './services/models/builtin-refresh.js'
import { generateBuiltinSamples } from './services/models/builtin-samples.js'
import { watchModels, type ModelWatch } from './services/models/model-watch.js'
import { neuralSettingsFrom } from './engines/tts/neural/settings.js'
import { hasNaturalVoice, NATURAL_VOICE_HINT } from './models/natural-hint.js'
import { isPostgresUrl } from './store/db/database.js'
import { seedBuiltinVoices } from './voices/seed.js'
import { armShutdownWatchdog } from './shutdown-watchdog.js'

export interface Server {
  readonly deps: Deps
  readonly app: FastifyInstance
  /** `http://host:port` the server listens on. */
  readonly address: string
  /**
   * Stops taking requests (new ones get 503), lets requests, streams and live utterances under way finish
   * for up to `shutdownTimeoutSec`, then cuts what is left; live sockets close with 1012 (reconnect).
   * Closes the engines and the database. Idempotent. `cut`: the deadline came first and work was cut.
   */
  drain(): Promise<{ readonly cut: boolean }>
  /** Looks at `modelsDir` again and takes in what changed (also done by the folder watcher and on SIGHUP). */
  rescanModels(): Promise<void>
}

export interface StartHooks {
  /**
   * Runs once the database is ready and before the listener opens, so its effects are in place when
   * `/healthz` first answers (`parla serve` writes the first API key here).
   */
  readonly beforeListen?: (deps: Deps) => Promise<void>
}

/**
 * Starts Parla: opens and migrates the database, seeds the built-in voices (which starts the engines),
 * listens (which runs crash recovery, see `app.ts`), then warms the rest in the background: speech
 * recognition, built-in voice samples, the measured profiles cloning uses. `/readyz` lists what is still
 * warming.
 */
export async function startServer(config: Config, overrides: DepsOverrides = {}, hooks: StartHooks = {}): Promise<Server> {
  const deps = await createDeps(config, overrides)
  const { logger, readiness } = deps
  const background = new AbortController()
  let app: FastifyInstance
  let address: string
  let wyoming: WyomingServer | undefined
  let watcher: ModelWatch | undefined
  const rescanModels = () => refreshBuiltinVoices({ ...sampleOptions(deps), repo: deps.models.repo, keys: deps.keys, logger }, background.signal)
  try {
    app = await buildApp(deps)
    // A model package's check ends: its voices' rows say so at once (`GET /model`), good ones get their sample.
    // Subscribed before the first seeding, so no check ends unseen between the two.
    const follow = voiceStateFollower({ ...sampleOptions(deps), repo: deps.models.repo, keys: deps.keys, logger }, background.signal)
    for (const engine of await deps.speech.engines.startAll()) engine.onVoicesChanged?.(follow)
    const voices = await seedBuiltinVoices(deps.models.repo, deps.keys, deps.speech.engines)
    await hooks.beforeListen?.(deps)
    address = await app.listen({ host: config.host, port: config.port })
    // Wyoming (Home Assistant): off unless a port is set; no authentication, so loopback unless configured.
    if (config.wyomingPort > 0) {
      wyoming = await startWyomingServer(deps, { host: config.wyomingHost, port: config.wyomingPort, log: app.log, ...(config.wyomingZeroconf && { zeroconf: config.wyomingZeroconfName }) })
    }
    logger.info({ voices: voices.length }, 'built-in voices ready')
    if (!hasNaturalVoice(voices.filter((v) => v.voice.unavailable === undefined).map((v) => v.modelId))) logger.info(NATURAL_VOICE_HINT)
    warm(deps, voices, background.signal)
    // Packages `parla models add|pull|rm` put in or take out are used without a restart.
    if (deps.speech.engines.ids.includes('neural')) watcher = watchModels({ dir: neuralSettingsFrom(config, resolve(config.dataDir)).modelsDir, rescan: rescanModels, logger })
  } catch (err) {
    await wyoming?.close()
    await deps.close()
    throw err
  }

  let drained: Promise<{ cut: boolean }> | undefined
  const drain = async () => {
    let cut = false
    readiness.draining = true
    background.abort()
    watcher?.close()
    const deadline = setTimeout(() => {
      cut = true
      logger.warn({ afterSec: config.shutdownTimeoutSec }, 'shutdown deadline reached; cutting what is left')
      for (const client of app.websocketServer.clients) client.close(RESTART_CLOSE_CODE, 'server restarting')
      app.server.closeAllConnections()
    }, config.shutdownTimeoutSec * 1000)
    // Keep-alive connections go idle as their last response ends; close them then, not after keepAliveTimeout.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100)
    try {
      await wyoming?.close()
      await app.close()
    } finally {
      clearTimeout(deadline)
      clearInterval(idle)
      await deps.close()
    }
    return { cut }
  }
  return { deps, app, address, drain: () => (drained ??= drain()), rescanModels }
}

/** How built-in voice samples are made: once for all nodes on the database (`generateBuiltinSamples`). */
function sampleOptions(deps: Deps) {
  return {
    db: deps.db, blobs: deps.blobs, engines: deps.speech.engines, shared: isPostgresUrl(deps.config.databaseUrl), leaseMs: deps.config.jobLeaseSec * 1000,
    onError: (err: unknown, modelId: string) => deps.logger.warn({ err, modelId }, 'could not speak a built-in voice sample'),
  }
}

function warm(deps: Deps, voices: Awaited<ReturnType<typeof seedBuiltinVoices>>, signal: AbortSignal): void {
  const { logger, readiness } = deps
  const failed = (what: string) => (err: unknown) => !signal.aborted && logger.warn({ err }, what)
  // Speech recognition loads one decoder per core (seconds): now, not on the first request.
  readiness.track('speech recognition', deps.asr.warm()).then(
    () => logger.info('speech recognition ready'),
    failed('could not start speech recognition; /v1/asr retries on use'),
  )
  const samples = readiness.track('built-in voice samples', generateBuiltinSamples(sampleOptions(deps), voices, signal))
  const measured = samples.then(
    (made) => void (made > 0 && logger.info({ made }, 'generated built-in voice samples')),
    failed('could not generate built-in voice samples'),
  ).then(() => deps.speech.baseProfiles.warm(signal))
  readiness.track('voice cloning', measured).then(
    () => !signal.aborted && logger.info('voice cloning ready (built-in voices measured)'),
    failed('could not measure built-in voices; cloning measures them on use'),
  )
}

/** What `handleSignals` needs of `process` (tests pass their own). */
export interface SignalTarget {
  on(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown
  exit(code: number): void
}

/** Seconds after `shutdownTimeoutSec` at which the watchdog ends a process whose drain has not ended it. */
export const WATCHDOG_GRACE_SEC = 3

/**
 * First SIGTERM/SIGINT: drain, then exit 0, or 1 if work had to be cut at `shutdownTimeoutSec` or draining
 * failed; a watchdog on its own thread (`armShutdownWatchdog`, tests pass their own) ends the process with 1
 * `WATCHDOG_GRACE_SEC` later whatever the main thread is doing. A second one: exit 1 at once. SIGHUP: look
 * at the model packages again (for a `modelsDir` that is not watched, e.g. on a network file system).
 */
export function handleSignals(server: Server, target: SignalTarget = process, armWatchdog = armShutdownWatchdog): void {
  let received = false
  const onSignal = (signal: string) => {
    if (received) {
      server.deps.logger.warn({ signal }, 'second signal; exiting now')
      return target.exit(1)
    }
    received = true
    const deadlineSec = server.deps.config.shutdownTimeoutSec
    armWatchdog((deadlineSec + WATCHDOG_GRACE_SEC) * 1000, 1)
    server.deps.logger.info({ signal, deadlineSec }, 'shutting down')
    server.drain().then(
      ({ cut }) => target.exit(cut ? 1 : 0),
      (err) => {
        server.deps.logger.error({ err }, 'shutdown failed')
        target.exit(1)
      },
    )
  }
  target.on('SIGTERM', () => onSignal('SIGTERM'))
  target.on('SIGINT', () => onSignal('SIGINT'))
  target.on('SIGHUP', () => {
    server.deps.logger.info('SIGHUP: looking at the model packages again')
    void server.rescanModels()
  })
}
