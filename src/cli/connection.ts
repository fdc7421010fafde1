import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { configFromOptions } from './context.js'
import { CliError, EXIT } from './exit.js'
import { ParlaClient } from './client.js'

export interface ConnectionOptions {
  server?: string
  key?: string
  dataDir?: string
  config?: string
}

/** The options every API command takes: a remote Parla, or the local data directory. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--server <url>', 'a remote Parla, e.g. http://host:8080 (default: $PARLA_SERVER; without it the local data dir)')
    .option('--key <key>', 'API key (default: $PARLA_KEY; locally also <data dir>/api-key)')
    .option('--data-dir <dir>', 'local data directory when no server is given (default: $PARLA_DATA_DIR or ./data)')
    .option('--config <file>', 'JSON config file for the local data directory')
}

export interface Connection {
  readonly client: ParlaClient
  close(): Promise<void>
}

/**
 * A client for the API, whichever side it is on. Remote: the given URL. Local: the same server built in this
 * process on the data directory, listening on a loopback port for as long as the command runs, so a local
 * command goes through exactly the HTTP API a remote one does.
 */
export async function connect(options: ConnectionOptions): Promise<Connection> {
  const server = options.server ?? process.env.PARLA_SERVER
  const key = options.key ?? process.env.PARLA_KEY
  if (server) {
    if (!/^https?:\/\/[^/]/.test(server)) throw new CliError(EXIT.usage, `--server must be an http:// or https:// URL, got '${server}'`)
    if (!key) throw new CliError(EXIT.usage, 'a remote server needs an API key: pass --key KEY or set PARLA_KEY')
    return { client: new ParlaClient(server, key), close: async () => undefined }
  }
  const config = configFromOptions({ ...(options.dataDir && { dataDir: options.dataDir }), ...(options.config && { config: options.config }), logLevel: 'silent' })
  const localKey = key ?? (await readFile(join(resolve(config.dataDir), 'api-key'), 'utf8').catch(() => '')).trim()
  if (!localKey) {
    throw new CliError(EXIT.usage, `no API key for the local data dir ${config.dataDir}: pass --key, set PARLA_KEY, or run 'parla keys create --name me'`)
  }
  // The server's modules load only here: a command on a remote Parla starts without them (1.3 s instead of 3.1 s).
  const [{ createDeps }, { buildApp }] = await Promise.all([import('../deps.js'), import('../app.js')])
  const deps = await createDeps(config)
  const app = await buildApp(deps)
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    return {
      client: new ParlaClient(url, localKey),
      async close() {
        await app.close()
        await deps.close()
      },
    }
  } catch (err) {
    await app.close()
    await deps.close()
    throw err
  }
}

/** Runs a command body with a connection, closing it afterwards, and turns failures into a message and exit code. */
export async function withConnection(options: ConnectionOptions, run: (client: ParlaClient) => Promise<void>): Promise<void> {
  let connection: Connection | undefined
  try {
    connection = await connect(options)
    await run(connection.client)
  } catch (err) {
    if (!(err instanceof CliError)) throw err
    process.stderr.write(`parla: ${err.message}\n`)
    process.exitCode = err.exitCode
  } finally {
    await connection?.close()
  }
}
