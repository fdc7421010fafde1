import { ConfigError, loadConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { flagsFromOptions } from './config-flags.js'

/** Loads the config from the command's flags, or prints the config error and exits 2. */
export function configFromOptions(options: Record<string, unknown>): Config {
  try {
    return loadConfig({ file: options.config as string | undefined, flags: flagsFromOptions(options) })
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`parla: ${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
}
