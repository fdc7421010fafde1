/**
 * A throwaway PostgreSQL from Debian's `postgresql` package (scripts/ensure-deps.sh --test installs it): its own
 * data directory and unix socket in a temp folder, a free TCP port on loopback, a random password, stopped and
 * deleted by `stop()`. initdb refuses to run as root, so as root the cluster belongs to Debian's `postgres`
 * user; the package's default cluster (if Debian created one) is never used.
 */
import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { chmod, chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface ThrowawayPostgres {
  /** `postgres://parla:…@127.0.0.1:<port>/postgres` */
  readonly url: string
  stop(): Promise<void>
  /**
   * The same, synchronously, for a process that is exiting without its teardown (Ctrl-C, a cancelled CI job):
   * the server is a daemon and would otherwise outlive the run. Does nothing once stopped.
   */
  stopNow(): void
}

async function binDir(): Promise<string> {
  const root = '/usr/lib/postgresql'
  const versions = (await readdir(root).catch(() => [] as string[])).filter((v) => /^\d+$/.test(v))
  if (versions.length === 0) {
    throw new Error(`[postgres] no PostgreSQL under ${root}; run scripts/ensure-deps.sh --test (Debian package postgresql)`)
  }
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin')
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function owner(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]).catch(() => {
    throw new Error('[postgres] running as root needs the `postgres` user (Debian package postgresql-common)')
  })
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) }
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = await binDir()
  const user = await owner()
  const dir = await mkdtemp(join(tmpdir(), 'parla-pg-'))
  const data = join(dir, 'data')
  const password = randomBytes(18).toString('base64url')
  const pwfile = join(dir, 'password')
  await writeFile(pwfile, password, { mode: 0o600 })
  if (user) {
    await chown(dir, user.uid, user.gid)
    await chown(pwfile, user.uid, user.gid)
  }
  await chmod(dir, 0o700)
  // As root, every PostgreSQL program runs as `postgres` (runuser keeps no privileges).
  const command = (program: string, args: string[]): [string, string[]] =>
    user ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args]
  const pgRun = (program: string, args: string[]) => run(...command(program, args))
  const ctl = (args: string[]) => pgRun('pg_ctl', ['-D', data, ...args])
  try {
    await pgRun('initdb', ['-D', data, '-U', 'parla', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'])
    const port = await freePort()
    // Durability settings off: the data is thrown away, and the tests are what should take the CPU.
    const settings = [
      `-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c synchronous_commit=off',
      '-c full_page_writes=off', '-c shared_buffers=32MB', '-c max_connections=300',
    ]
    await ctl(['-l', join(dir, 'server.log'), '-w', '-t', '120', '-o', settings.join(' '), 'start'])
    let stopped: Promise<void> | undefined
    const stopArgs = ['-D', data, '-m', 'immediate', '-w', 'stop']
    return {
      url: `postgres://parla:${password}@127.0.0.1:${port}/postgres`,
      stop: () =>
        (stopped ??= pgRun('pg_ctl', stopArgs)
          .then(() => undefined)
          .finally(() => rm(dir, { recursive: true, force: true }))),
      stopNow: () => {
        if (stopped) return
        stopped = Promise.resolve()
        try {
          execFileSync(...command('pg_ctl', stopArgs), { stdio: 'ignore' })
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
    }
  } catch (err) {
    await ctl(['-m', 'immediate', 'stop']).catch(() => {})
    const log = await run('cat', [join(dir, 'server.log')]).then((r) => r.stdout.slice(-2000), () => '')
    await rm(dir, { recursive: true, force: true })
    throw new Error(`[postgres] could not start a throwaway server: ${(err as Error).message}\n${log}`, { cause: err })
  }
}
