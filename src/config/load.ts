import { existsSync, readFileSync } from 'node:fs'
import { Value } from 'typebox/value'
import { ConfigSchema, type Config } from './schema.js'

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

type Layer = Record<string, unknown>
const KEYS = Object.keys(ConfigSchema.properties) as (keyof Config)[]

/** `maxTextLength` → `PARLA_MAX_TEXT_LENGTH` */
export const envName = (key: string) => `PARLA_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`
/** `maxTextLength` → `max-text-length` */
export const flagName = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

export interface ConfigSources {
  /** Path of a JSON config file; defaults to `$PARLA_CONFIG`, then `./parla.config.json` when it exists. */
  readonly file?: string
  readonly env?: NodeJS.ProcessEnv
  /** Already-parsed CLI flags, keyed by config key (camelCase). */
  readonly flags?: Layer
}

/** Builds the frozen config from the four layers, or throws a ConfigError naming the wrong setting and its source. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env
  const fileLayer = readConfigFile(sources.file ?? env.PARLA_CONFIG)
  const envLayer: Layer = {}
  for (const key of KEYS) {
    const value = env[envName(key)]
    if (value !== undefined && value !== '') envLayer[key] = value
  }
  const flagLayer: Layer = {}
  for (const [key, value] of Object.entries(sources.flags ?? {})) if (value !== undefined) flagLayer[key] = value

  const origin = new Map<string, string>()
  for (const [layer, name] of [
    [fileLayer.values, fileLayer.name],
    [envLayer, 'environment'],
    [flagLayer, 'command line'],
  ] as const) {
    for (const key of Object.keys(layer)) {
      if (!KEYS.includes(key as keyof Config)) {
        throw new ConfigError(`Unknown setting "${key}" in ${name}. Known settings: ${KEYS.join(', ')}.`)
      }
      origin.set(key, name)
    }
  }
  const merged = { ...fileLayer.values, ...envLayer, ...flagLayer }
  const converted = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, merged)) as Layer
  const errors = [...Value.Errors(ConfigSchema, converted)]
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const key = e.instancePath.replace(/^\//, '').split('/')[0] ?? ''
      const from = origin.get(key) ?? 'defaults'
      const hint = from === 'environment' ? ` (${envName(key)})` : from === 'command line' ? ` (--${flagName(key)})` : ''
      return `setting "${key}"${hint} from ${from}: ${e.message}, got ${JSON.stringify(merged[key])}`
    })
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`)
  }
  return Object.freeze(converted) as unknown as Config
}

function readConfigFile(path: string | undefined): { values: Layer; name: string } {
  const file = path ?? (existsSync('parla.config.json') ? 'parla.config.json' : undefined)
  if (!file) return { values: {}, name: 'config file' }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`Cannot read config file ${file}: ${(err as Error).message}`)
  }
  let values: unknown
  try {
    values = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`Config file ${file} is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new ConfigError(`Config file ${file} must hold a JSON object of settings`)
  }
  return { values: values as Layer, name: `config file ${file}` }
}
