import { ConfigError, loadConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { createVoiceAliases } from '../services/models/voice-aliases.js'
import { flagsFromOptions } from './config-flags.js'

/** Loads the config from the command's flags, or prints the config error and exits 2. */
export function configFromOptions(options: Record<string, unknown>): Config {
  try {
    const config = loadConfig({ file: options.config as string | undefined, flags: flagsFromOptions(options) })
    // Checked here too, so a malformed value is the same one-line config error rather than a crash at start.
    createVoiceAliases(config.voiceAliases)
    return config
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`parla: ${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
}
