import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/parla.js', import.meta.url))

export interface CliRun {
  code: number
  stdout: Buffer
  stderr: string
}

/** Runs the real `parla` bin; stdin is closed (or given), stdout kept as bytes (audio can come out of it). */
export function parla(args: readonly string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, PARLA_SERVER: '', PARLA_KEY: '', ...options.env }
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }))
    child.stdin.end(options.input ?? '')
  })
}
