import type { Command } from 'commander'
import { flagName } from '../config/load.js'
import { ConfigSchema } from '../config/schema.js'

/** Adds one `--kebab-name <value>` option per config setting, so every setting can be given on the command line. */
export function addConfigFlags(command: Command): Command {
  for (const [key, schema] of Object.entries(ConfigSchema.properties)) {
    const description = (schema as { description?: string }).description ?? `config setting ${key}`
    command.option(`--${flagName(key)} <value>`, description)
  }
  return command.option('--config <file>', 'JSON config file (default: $PARLA_CONFIG or ./parla.config.json)')
}

/** Commander's parsed options → config layer (camelCase keys), leaving out `config`. */
export function flagsFromOptions(options: Record<string, unknown>): Record<string, unknown> {
  const { config: _file, ...rest } = options
  return rest
}
