/**
 * The soak's heap-snapshot diff (`bench/heap-diff.ts`) on real snapshots: a small node process writes one,
 * allocates objects of named classes and keeps them, and writes another; the diff must show exactly those.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diffHeapSnapshots, diffHeapSummaries, formatHeapDiff } from '../bench/heap-diff.js'
import { summarizeHeapSnapshot } from '../bench/heap-snapshot.js'

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

  it('counts every node and its self size, as the whole file parsed at once does', async () => {
    for (const path of [a, b]) {
      const whole = JSON.parse(await readFile(path, 'utf8')) as { snapshot: { meta: { node_fields: string[] } }, nodes: number[] }
      const fields = whole.snapshot.meta.node_fields
      const sizeAt = fields.indexOf('self_size')
      let size = 0
      for (let i = sizeAt; i < whole.nodes.length; i += fields.length) size += whole.nodes[i]!
      const { total } = diffHeapSummaries(new Map(), summarizeHeapSnapshot(path))
      expect(total.b).toEqual({ count: whole.nodes.length / fields.length, size })
    }
  })

  it('reads the same when every token is split between two reads', () => {
    expect(summarizeHeapSnapshot(b, 61)).toEqual(summarizeHeapSnapshot(b))
  })

  it('decodes escaped and non-ASCII names, skips members it does not need, and refuses a cut file', async () => {
    const snapshot = {
      snapshot: { meta: { node_fields: ['type', 'name', 'self_size'], node_types: [['hidden', 'object', 'string']] }, node_count: 4 },
      nodes: [1, 1, 10, 1, 2, 20, 2, 3, 5, 1, 1, 30],
      edges: [0, 1, 2],
      trace_tree: [[1, [2, [3]]], { deep: ['x]'] }],
      strings: ['<dummy>', 'Ca\\"fé\u00e9', '\u{1F600}"\n', 'a string, not a name'],
    }
    const path = join(dir, 'made.heapsnapshot')
    const text = JSON.stringify(snapshot, null, 1)
    await writeFile(path, text)
    for (const chunk of [3, 1 << 16]) {
      expect(summarizeHeapSnapshot(path, chunk)).toEqual(new Map([
        ['Ca\\"féé', { count: 2, size: 40 }],
        ['\u{1F600}"\n', { count: 1, size: 20 }],
        ['(string)', { count: 1, size: 5 }],
      ]))
    }
    await writeFile(path, text.slice(0, text.indexOf('a string') + 3))
    expect(() => summarizeHeapSnapshot(path, 5)).toThrow(/ends inside a string/)
  })
})
