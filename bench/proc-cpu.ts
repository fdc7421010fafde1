/** CPU time of process trees from /proc, for the benchmarks that measure cost rather than speed. */
import { readdirSync, readFileSync } from 'node:fs'

export interface ProcStat {
  readonly ppid: number
  /** utime + stime + cutime + cstime, in clock ticks (10 ms on Linux). */
  readonly ticks: number
  readonly cmdline: string
}

/** Every process's parent, CPU ticks so far and command line. */
export function processTable(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = readOrEmpty(`/proc/${name}/stat`)
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (fields.length < 15) continue
    // cutime + cstime count too: what children that exited used (a PostgreSQL backend whose connection closed,
    // a replaced engine process) moves there, so a tree's sum never goes back.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    out.set(Number(name), { ppid: Number(fields[1]), ticks, cmdline: readOrEmpty(`/proc/${name}/cmdline`).replaceAll('\0', ' ') })
  }
  return out
}

/** CPU ms of the processes under each root, the roots included. */
export function treeCpuMs(table: Map<number, ProcStat>, roots: readonly number[]): number {
  const under = (p: number): boolean => roots.includes(p) || (p > 1 && table.has(p) && under(table.get(p)!.ppid))
  let ticks = 0
  for (const [p, s] of table) if (under(p)) ticks += s.ticks
  return ticks * 10
}

/** CPU ms used so far by `root` and every process under it. */
export function processTreeCpuMs(root: number): number {
  return treeCpuMs(processTable(), [root])
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return '' // the process ended meanwhile
  }
}
