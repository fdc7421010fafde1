import { existsSync, mkdirSync, watch, type FSWatcher } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Logger } from '../../logger.js'

export interface ModelWatchOptions {
  /** `modelsDir`. */
  readonly dir: string
  /** Looks again at the packages (the engines' `rescan`); never rejects. */
  readonly rescan: () => Promise<void>
  readonly logger: Logger
  /** A package is unpacked by several renames (`parla models add`): one look after they settle. */
  readonly settleMs?: number
  /** How often the folder's top level is compared with what the last look saw, for changes the watcher missed. */
  readonly checkMs?: number
}

export interface ModelWatch {
  close(): void
}

/**
 * Watches `modelsDir`, so packages that `parla models add|pull|rm` (or a copy by hand) put there or take away
 * are used without a restart. A missing folder is created when its parent exists (the default
 * `<dataDir>/models`); otherwise nothing is watched and SIGHUP (server.ts) is the way to ask for a look.
 * Names starting with `.` (Parla's cache and staging) are not packages, and changes under them are not looked at.
 */
export function watchModels(options: ModelWatchOptions): ModelWatch {
  const { dir, logger } = options
  if (!existsSync(dir)) {
    if (!existsSync(dirname(dir))) {
      logger.debug({ modelsDir: dir }, 'models folder does not exist; not watching it (send SIGHUP after creating it)')
      return { close() {} }
    }
    mkdirSync(dir, { recursive: true })
  }
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let seen: string | undefined
  let again = false
  let closed = false
  const look = (): void => {
    timer = undefined
    if (closed) return
    if (running) {
      again = true
      return
    }
    running = topLevel(dir).then((now) => (seen = now), () => undefined).then(options.rescan).finally(() => {
      running = undefined
      if (again && !closed) {
        again = false
        look()
      }
    })
  }
  let watcher: FSWatcher
  try {
    // Recursive: a package copied in by hand is a folder first and its files later, and the look waits for
    // the last of them.
    watcher = watch(dir, { recursive: true }, (_event, name) => {
      if (closed || (name && name.startsWith('.'))) return
      clearTimeout(timer)
      timer = setTimeout(look, options.settleMs ?? 500)
      timer.unref()
    })
  } catch (err) {
    logger.warn({ err, modelsDir: dir }, 'cannot watch the models folder; send SIGHUP after adding or removing models')
    return { close() {} }
  }
  watcher.on('error', (err) => {
    logger.warn({ err, modelsDir: dir }, 'stopped watching the models folder; send SIGHUP after adding or removing models')
    watcher.close()
  })
  // Watching is no reason to keep the process alive.
  watcher.unref()
  // inotify can drop events (a full queue), and Node's recursive watcher can miss a folder replaced under the
  // same name: a cheap comparison of the top level with what the last look saw catches what it missed.
  const check = setInterval(() => {
    if (running || timer || closed) return
    void topLevel(dir).then((now) => {
      if (seen !== undefined && now !== seen && !running && !timer && !closed) look()
    }, () => undefined)
  }, options.checkMs ?? 10_000)
  check.unref()
  void topLevel(dir).then((now) => (seen ??= now), () => undefined)
  return {
    close() {
      closed = true
      clearTimeout(timer)
      clearInterval(check)
      watcher.close()
    },
  }
}

/** The packages at the folder's top level, each with its identity and time: changes when one is added, replaced or removed. */
async function topLevel(dir: string): Promise<string> {
  const entries = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort()
  const parts = await Promise.all(entries.map(async (name) => {
    const info = await stat(join(dir, name)).catch(() => undefined)
    return info ? `${name}:${info.ino}:${info.mtimeMs}` : name
  }))
  return parts.join('\n')
}
