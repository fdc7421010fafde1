/**
 * What grew between two heap snapshots of the same process: per constructor or type (see `heap-snapshot.ts`),
 * objects and self size at A and at B, and the change. Self size is the object's own bytes, not what it keeps
 * alive, so a leak shows in the rows of the objects that pile up (a listener, its closure, its context), and
 * the totals say how much of the heap they account for.
 */
import { summarizeHeapSnapshot, type HeapSummary, type Tally } from './heap-snapshot.js'

export interface HeapDiffRow {
  readonly label: string
  readonly a: Tally
  readonly b: Tally
}

export interface HeapDiff {
  /** Every label in either snapshot, most grown (self size) first; ties by count. */
  readonly rows: readonly HeapDiffRow[]
  readonly total: { readonly a: Tally, readonly b: Tally }
}

export function diffHeapSummaries(a: HeapSummary, b: HeapSummary): HeapDiff {
  const none: Tally = { count: 0, size: 0 }
  const labels = new Set([...a.keys(), ...b.keys()])
  const rows = [...labels].map((label) => ({ label, a: a.get(label) ?? none, b: b.get(label) ?? none }))
  const growth = (r: HeapDiffRow) => r.b.size - r.a.size
  rows.sort((x, y) => growth(y) - growth(x) || (y.b.count - y.a.count) - (x.b.count - x.a.count) || x.label.localeCompare(y.label))
  const sum = (s: HeapSummary) => [...s.values()].reduce((t, v) => ({ count: t.count + v.count, size: t.size + v.size }), none)
  return { rows, total: { a: sum(a), b: sum(b) } }
}

export function diffHeapSnapshots(pathA: string, pathB: string): HeapDiff {
  return diffHeapSummaries(summarizeHeapSnapshot(pathA), summarizeHeapSnapshot(pathB))
}

const signed = (n: number) => (n > 0 ? `+${n.toLocaleString('en-US')}` : n.toLocaleString('en-US'))
const kb = (bytes: number) => (bytes / 1024).toFixed(1)
const signedKb = (bytes: number) => (bytes > 0 ? `+${kb(bytes)}` : kb(bytes))

/** A table of the `top` growers and the totals; `names` say when A and B were taken ("minute 1"). */
export function formatHeapDiff(diff: HeapDiff, names: readonly [string, string], top = 20): string {
  const header = ['constructor / type', `count ${names[0]}`, `count ${names[1]}`, 'Δ count', `KB ${names[0]}`, `KB ${names[1]}`, 'Δ KB']
  const line = (label: string, a: Tally, b: Tally) => [
    label.length > 60 ? `${label.slice(0, 59)}…` : label,
    a.count.toLocaleString('en-US'), b.count.toLocaleString('en-US'), signed(b.count - a.count),
    kb(a.size), kb(b.size), signedKb(b.size - a.size),
  ]
  const body = diff.rows.slice(0, top).map((r) => line(r.label, r.a, r.b))
  const total = line('total', diff.total.a, diff.total.b)
  const table = [header, ...body, total]
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)))
  const render = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
  return [render(header), ...body.map(render), render(total)].join('\n')
}
