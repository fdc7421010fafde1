#!/usr/bin/env node
// Checks that modules under src/ import downwards only (docs/architecture.md, "Layers"). A module may import
// its own folder or any folder of a lower layer; tests (*.test.ts) are exempt. Exits 1 listing every upward import.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/** Highest layer first. A top-level folder or root file of src/ → its layer. */
const LAYERS = [
  ['cli'],
  ['app', 'server'],
  ['api'],
  // The composition root: wires services, stores and engines; routes receive its `Deps`.
  ['deps'],
  ['services'],
  ['voices', 'asr'],
  ['store', 'engines', 'models'],
  ['audio'],
  ['text', 'config', 'errors', 'abort', 'logger', 'log-sink', 'shutdown-watchdog', 'principal', 'readiness', 'module-worker', 'malloc-tuning'],
]
const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, LAYERS.length - i])))

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')
const src = join(root, 'src')
const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [])
/** `cli`, `app`, … : the first path segment under src/, without extension. */
const unit = (file) => relative(src, file).split('/')[0].replace(/\.(ts|js)$/, '')

const problems = []
for (const file of files(src)) {
  const from = unit(file)
  const text = readFileSync(file, 'utf8')
  for (const [, spec] of text.matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), spec)
    const rel = relative(src, target)
    if (rel.startsWith('..')) {
      problems.push(`${relative(root, file)}: imports ${spec}, outside src/`)
      continue
    }
    const to = unit(target)
    if (to === from) continue
    const [a, b] = [layerOf.get(from), layerOf.get(to)]
    if (a === undefined || b === undefined) {
      problems.push(`${relative(root, file)}: src/${a === undefined ? from : to} has no layer; add it to LAYERS in scripts/check-imports.mjs and docs/architecture.md`)
    } else if (b > a) {
      problems.push(`${relative(root, file)}: ${from} imports ${to} (${spec}), a higher layer`)
    }
  }
}
if (problems.length > 0) {
  console.error(`Upward imports (layers, highest first: ${LAYERS.map((l) => l.join('/')).join(' → ')}):`)
  for (const p of problems) console.error(`  ${p}`)
  process.exit(1)
}
