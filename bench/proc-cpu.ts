/** CPU time of process trees from /proc, for the benchmarks that measure cost rather than speed. */
import { readdirSync, readFileSync } from 'node:fs'

export interface ProcStat {
  readonly ppid: number
  /** utime + stime + cutime + cstime, in clock ticks (10 ms on Linux). */
  readonly ticks: number
  /** minflt + cminflt: pages the process (and its children that exited) touched for the first time. */
  readonly faults: number
  readonly cmdline: string
}

/** Every process's parent, CPU ticks and minor page faults so far, and command line. */
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
    out.set(Number(name), { ppid: Number(fields[1]), ticks, faults: Number(fields[7]) + Number(fields[8]), cmdline: readOrEmpty(`/proc/${name}/cmdline`).replaceAll('\0', ' ') })
  }
  return out
}

/** The sum of `field` over the processes under each root, the roots included. */
function treeSum(table: Map<number, ProcStat>, roots: readonly number[], field: 'ticks' | 'faults'): number {
  const under = (p: number): boolean => roots.includes(p) || (p > 1 && table.has(p) && under(table.get(p)!.ppid))
  let sum = 0
  for (const [p, s] of table) if (under(p)) sum += s[field]
  return sum
}

/** CPU ms of the processes under each root, the roots included. */
export const treeCpuMs = (table: Map<number, ProcStat>, roots: readonly number[]): number => treeSum(table, roots, 'ticks') * 10

/**
 * CPU ms used so far by `root` and every process under it, and the pages they faulted in: fresh memory, which
 * costs a page fault per 4 KB page, 10 µs or more on a virtual machine (docs/benchmarks.md, "Neural engines").
 */
export function processTreeUsage(root: number): { cpuMs: number; faults: number } {
  const table = processTable()
  return { cpuMs: treeCpuMs(table, [root]), faults: treeSum(table, [root], 'faults') }
}

/** CPU ms used so far by `root` and every process under it. */
export const processTreeCpuMs = (root: number): number => processTreeUsage(root).cpuMs

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return '' // the process ended meanwhile
  }
}
