/**
 * The real-architecture models the neural benchmarks run: built once by the repo's own build scripts (the
 * families' upstream model code and export scripts, random weights, the published dimensions) into
 * BENCH_MODELS_DIR (default `~/.cache/parla/bench-models`), then reused. Building needs Debian's python3-torch
 * and the upstream sources (each script's `*_GIT` variables name local git directories when offline).
 * Random weights make noise, not speech, but the compute per call is that of the published models.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const BENCH_MODELS_DIR = process.env.BENCH_MODELS_DIR ?? join(homedir(), '.cache', 'parla', 'bench-models')

interface Built {
  /** The package folder's name in BENCH_MODELS_DIR (what discovery calls it). */
  readonly name: string
  /** The build script and its arguments before the output folder. */
  readonly script: readonly string[]
}

const MODELS = {
  piperMedium: { name: 'en_US-parla_test-medium', script: ['scripts/models/piper/build.sh', '--medium'] },
  kokoro: { name: 'kokoro-multi-lang-v1_0', script: ['scripts/models/kokoro/build.sh', '--full'] },
} as const satisfies Record<string, Built>

export type BenchModel = keyof typeof MODELS

/**
 * The package folder of `model` in BENCH_MODELS_DIR, built first when missing (minutes on 2 cores; a build cut
 * short leaves nothing under the final name).
 */
export function benchModel(model: BenchModel): { dir: string; name: string } {
  const { name, script } = MODELS[model]
  const dir = join(BENCH_MODELS_DIR, name)
  if (!existsSync(dir)) {
    mkdirSync(BENCH_MODELS_DIR, { recursive: true })
    // Each script writes the package folder inside the folder it is given.
    const partial = `${dir}.partial`
    rmSync(partial, { recursive: true, force: true })
    console.error(`building ${name} with ${script.join(' ')} (once; kept in ${BENCH_MODELS_DIR}) …`)
    execFileSync('bash', [...script, partial], { stdio: ['ignore', 'ignore', 'inherit'] })
    renameSync(join(partial, name), dir)
    rmSync(partial, { recursive: true, force: true })
  }
  return { dir, name }
}
