/**
 * Vitest global setup: at the end of the run, no `parla serve` process the suite started (nor a child of one:
 * festival, the neural host) may still be alive. Every process the run starts inherits `PARLA_TEST_RUN`, so
 * the teardown finds them by it in /proc, whoever their parent is now; it waits a little for ones still
 * shutting down, then kills what is left and fails the run, naming them.
 */
import { randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'

const MARK = 'PARLA_TEST_RUN'

interface Proc {
  pid: number
  ppid: number
  cmdline: string
}

export default function setup(): () => Promise<void> {
  const run = randomUUID()
  process.env[MARK] = run
  return async () => {
    let left: Proc[] = []
    for (let i = 0; i < 100; i++) {
      left = await leftovers(run)
      if (left.length === 0) return
      await new Promise((r) => setTimeout(r, 100))
    }
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {
        // Gone meanwhile.
      }
    }
    throw new Error(`the suite left ${left.length} parla serve process(es) alive (now killed):\n${left.map((p) => `  ${p.pid}: ${p.cmdline}`).join('\n')}`)
  }
}

/** This run's `parla serve` processes and their children. */
async function leftovers(run: string): Promise<Proc[]> {
  const marked: Proc[] = []
  for (const name of await readdir('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      const environ = await readFile(`/proc/${pid}/environ`, 'latin1')
      if (!environ.split('\0').includes(`${MARK}=${run}`)) continue
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'latin1')).split('\0').join(' ').trim()
      const stat = await readFile(`/proc/${pid}/stat`, 'latin1')
      // Zombies are already dead: only their parent's wait is missing.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (state !== 'Z') marked.push({ pid, ppid: Number(ppid), cmdline })
    } catch {
      // Gone, or not ours to read.
    }
  }
  const serving = new Set(marked.filter((p) => /bin\/parla(\.js)? serve\b/.test(p.cmdline)).map((p) => p.pid))
  return marked.filter((p) => serving.has(p.pid) || serving.has(p.ppid))
}
