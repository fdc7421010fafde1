/**
 * The soak's heap-snapshot diff (`bench/heap-diff.ts`) on real snapshots: a small node process writes one,
 * allocates objects of named classes and keeps them, and writes another; the diff must show exactly those.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diffHeapSnapshots, formatHeapDiff } from '../bench/heap-diff.js'
import { summarize } from '../bench/heap-snapshot.js'

const PROBES = 1234
const UMLAUTS = 17
const ALLOCATE = `
const { writeHeapSnapshot } = require('node:v8')
class HeapDiffProbe { constructor(i) { this.i = i; this.next = null } }
class Grüße { constructor(i) { this.i = i } }
writeHeapSnapshot(process.argv[1])
globalThis.kept = []
for (let i = 0; i < ${PROBES}; i++) kept.push(new HeapDiffProbe(i))
for (let i = 0; i < ${UMLAUTS}; i++) kept.push(new Grüße(i))
writeHeapSnapshot(process.argv[2])
`

let dir: string
let a: string
let b: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-heap-diff-'))
  a = join(dir, 'a.heapsnapshot')
  b = join(dir, 'b.heapsnapshot')
  await promisify(execFile)(process.execPath, ['-e', ALLOCATE, a, b])
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('heap-snapshot diff', () => {
  it('shows the objects allocated and kept between the snapshots, by class', () => {
    const diff = diffHeapSnapshots(a, b)
    const probe = diff.rows.find((r) => r.label === 'HeapDiffProbe')
    expect(probe?.a).toEqual({ count: 0, size: 0 })
    expect(probe?.b.count).toBe(PROBES)
    // Each probe has a header, a map pointer and two fields at least.
    expect(probe!.b.size).toBeGreaterThanOrEqual(PROBES * 16)
    const umlaut = diff.rows.find((r) => r.label === 'Grüße')
    expect(umlaut?.b.count).toBe(UMLAUTS)
    // The probes are the largest growth of all (the array holding them is a single object).
    expect(diff.rows[0]!.label).toBe('HeapDiffProbe')
    const table = formatHeapDiff(diff, ['A', 'B'], 5)
    expect(table.split('\n')[1]).toMatch(/^HeapDiffProbe\s+0\s+1,234\s+\+1,234\s/)
    expect(table.split('\n').at(-1)).toMatch(/^total\s/)
  })

  it('counts each node once under its label, and refuses what is not a snapshot', () => {
    const meta = { node_fields: ['type', 'name', 'self_size', 'id'], node_types: [['hidden', 'object', 'string', 'closure']] as [string[]] }
    const strings = ['<dummy>', 'Café', 'some text', 'onClose']
    const nodes = [1, 1, 10, 1, 1, 1, 20, 2, 2, 2, 5, 3, 3, 3, 8, 4, 0, 0, 4, 5]
    expect(summarize({ snapshot: { meta }, nodes, strings })).toEqual(new Map([
      ['Café', { count: 2, size: 30 }],
      ['(string)', { count: 1, size: 5 }],
      ['(closure) onClose', { count: 1, size: 8 }],
      ['(hidden) <dummy>', { count: 1, size: 4 }],
    ]))
    expect(() => summarize({ snapshot: { meta }, nodes: nodes.slice(0, 6), strings })).toThrow(/ends inside a node/)
    expect(() => summarize({ nodes, strings })).toThrow(/not a V8 heap snapshot/)
  })
})
