/**
 * A V8 heap snapshot (`.heapsnapshot`, as `v8.writeHeapSnapshot()` writes it) summed per constructor or type:
 * how many objects and how many bytes of self size. The file is parsed whole: the soak's server (50 MB of heap
 * used) writes about 50 MB, which `JSON.parse` reads in a few hundred MB of the benchmark's memory. Only the
 * node fields `type`, `name` and `self_size` (located through `snapshot.meta.node_fields`) are read.
 */
import { readFileSync } from 'node:fs'

export interface Tally { count: number, size: number }
/** Label (a constructor, or a type in parentheses) → objects and their self size in bytes. */
export type HeapSummary = Map<string, Tally>

interface Snapshot {
  snapshot?: { meta?: { node_fields: string[], node_types: [string[], ...unknown[]] } }
  nodes?: number[]
  strings?: string[]
}

/** Node types whose `name` tells what the object is; for the rest (strings, numbers, …) it is their content. */
const NAMED = new Set(['object', 'native', 'closure', 'array', 'hidden', 'object shape', 'code'])

/**
 * The row an object is counted in. Objects and native (C++) objects under their constructor, as DevTools'
 * "Constructor" view does; closures by function name, because a leaked listener shows as a growing closure.
 * Compiled code only by V8's kind ("system / BytecodeArray"): by function name it would be thousands of rows.
 */
export function labelOf(type: string, name: string): string {
  if (type === 'object' || type === 'native') return name
  if (type === 'code' && !name.startsWith('system / ')) return '(code)'
  if (NAMED.has(type) && name !== '') return `(${type}) ${name}`
  return `(${type})`
}

export function summarizeHeapSnapshot(path: string): HeapSummary {
  return summarize(JSON.parse(readFileSync(path, 'utf8')) as Snapshot)
}

export function summarize({ snapshot, nodes, strings }: Snapshot): HeapSummary {
  const meta = snapshot?.meta
  if (!meta || !nodes || !strings) throw new Error('heap snapshot: "snapshot.meta", "nodes" or "strings" missing; not a V8 heap snapshot')
  const fields = meta.node_fields
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number]
  if (typeAt < 0 || nameAt < 0 || sizeAt < 0) throw new Error(`heap snapshot: node fields ${fields.join(', ')} lack type, name or self_size`)
  if (nodes.length % fields.length !== 0) throw new Error(`heap snapshot: "nodes" ends inside a node (${fields.length} fields each)`)
  const types = meta.node_types[0]
  const summary: HeapSummary = new Map()
  for (let at = 0; at < nodes.length; at += fields.length) {
    const type = types[nodes[at + typeAt]!] ?? `type ${nodes[at + typeAt]}`
    const label = labelOf(type, NAMED.has(type) ? strings[nodes[at + nameAt]!] ?? '' : '')
    const tally = summary.get(label)
    if (tally) {
      tally.count++
      tally.size += nodes[at + sizeAt]!
    } else {
      summary.set(label, { count: 1, size: nodes[at + sizeAt]! })
    }
  }
  return summary
}
