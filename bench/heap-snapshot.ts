/**
 * A V8 heap snapshot (`.heapsnapshot`, as `v8.writeHeapSnapshot()` writes it) summed per constructor or type:
 * how many objects and how many bytes of self size. The file is read in chunks and parsed as it comes: a
 * server's snapshot is tens to hundreds of MB (47 MB for the soak's server with 50 MB of heap used), which
 * `JSON.parse` would turn into several times as much memory, and past 512 MB cannot be one JavaScript string.
 * Only what the summary needs is kept: the node fields `type`, `name` and `self_size` (located through
 * `snapshot.meta.node_fields`) summed per (type, name) while `nodes` streams by, then the few entries of
 * `strings` those names point at. `edges` and the allocation traces are skipped.
 */
import { closeSync, openSync } from 'node:fs'
import { JsonBytes } from './json-bytes.js'

export interface Tally { count: number, size: number }
/** Label (a constructor, or a type in parentheses) → objects and their self size in bytes. */
export type HeapSummary = Map<string, Tally>

interface Meta { node_fields: string[], node_types: [string[], ...unknown[]] }

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

/** Reads the snapshot at `path`; `chunkBytes` is the read size (small ones only in tests). */
export function summarizeHeapSnapshot(path: string, chunkBytes = 1 << 20): HeapSummary {
  const fd = openSync(path, 'r')
  try {
    return summarize(new JsonBytes(fd, chunkBytes))
  } finally {
    closeSync(fd)
  }
}

function summarize(json: JsonBytes): HeapSummary {
  let meta: Meta | undefined
  /** (type index, name index or -1) → tally, while the names are still indices into `strings`. */
  const byTypeName = new Map<number, Tally & { type: number, name: number }>()
  let names = new Map<number, string>()
  json.expect(0x7b) // {
  json.eachMember((key) => {
    if (key === 'snapshot') {
      meta = (json.value() as { meta: Meta }).meta
    } else if (key === 'nodes') {
      if (!meta) throw new Error('heap snapshot: "nodes" comes before "snapshot"; cannot read its fields')
      tallyNodes(json, meta, byTypeName)
    } else if (key === 'strings') {
      const wanted = new Set([...byTypeName.values()].map((t) => t.name).filter((n) => n >= 0))
      names = json.strings(wanted)
    } else {
      json.skip()
    }
  })
  if (!meta) throw new Error('heap snapshot: no "snapshot" member; not a V8 heap snapshot')
  const types = meta.node_types[0]
  const summary: HeapSummary = new Map()
  for (const { type, name, count, size } of byTypeName.values()) {
    const typeName = types[type] ?? `type ${type}`
    const resolved = name < 0 ? '' : names.get(name)
    if (resolved === undefined) throw new Error(`heap snapshot: string ${name} is missing`)
    const label = labelOf(typeName, resolved)
    const tally = summary.get(label) ?? { count: 0, size: 0 }
    tally.count += count
    tally.size += size
    summary.set(label, tally)
  }
  return summary
}

function tallyNodes(json: JsonBytes, meta: Meta, byTypeName: Map<number, Tally & { type: number, name: number }>): void {
  const fields = meta.node_fields
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f))
  if (typeAt! < 0 || nameAt! < 0 || sizeAt! < 0) throw new Error(`heap snapshot: node fields ${fields.join(', ')} lack type, name or self_size`)
  const named = meta.node_types[0].map((t) => NAMED.has(t))
  let field = 0
  let type = 0
  let name = 0
  let size = 0
  json.numbers((n) => {
    if (field === typeAt) type = n
    else if (field === nameAt) name = n
    else if (field === sizeAt) size = n
    if (++field < fields.length) return
    field = 0
    const nameIndex = named[type] ? name : -1
    const key = type * 2 ** 32 + (nameIndex + 1)
    const tally = byTypeName.get(key)
    if (tally) {
      tally.count++
      tally.size += size
    } else {
      byTypeName.set(key, { type, name: nameIndex, count: 1, size })
    }
  })
  if (field !== 0) throw new Error(`heap snapshot: "nodes" ends inside a node (${fields.length} fields each)`)
}
