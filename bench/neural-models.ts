/**
 * The real-architecture models the neural benchmarks run: built once by the repo's own build scripts (the
 * families' upstream model code and export scripts, random weights, the published dimensions) into
 * BENCH_MODELS_DIR (default `~/.cache/parla/bench-models`), then reused. Building needs Debian's python3-torch
 * and the upstream sources (each script's `*_GIT` variables name local git directories when offline).
 * Random weights make noise, not speech, but the compute per call is that of the published models (a Whisper
 * package says a planted sentence of about 100 tokens per piece, at most 6 per second of audio: see
 * scripts/models/whisper/build.py).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { ModelChecks } from '../src/engines/neural/model-checks.js'
import { filesStamp } from '../src/engines/neural/load-checks.js'
import { detectPackage } from '../src/models/detect.js'

export const BENCH_MODELS_DIR = process.env.BENCH_MODELS_DIR ?? join(homedir(), '.cache', 'parla', 'bench-models')

interface Built {
  /** The package folder's name in BENCH_MODELS_DIR (what discovery calls it). */
  readonly name: string
  /** The build script and its arguments before the output folder. */
  readonly script: readonly string[]
  /** Spoken through `/v1/tts`, or transcribed through `/v1/asr`. */
  readonly kind: 'tts' | 'asr'
}

const MODELS = {
  piperMedium: { name: 'en_US-parla_test-medium', script: ['scripts/models/piper/build.sh', '--medium'], kind: 'tts' },
  kokoro: { name: 'kokoro-multi-lang-v1_0', script: ['scripts/models/kokoro/build.sh', '--full'], kind: 'tts' },
  whisperTiny: { name: 'sherpa-onnx-whisper-tiny', script: ['scripts/models/whisper/build.sh', '--dims', 'tiny'], kind: 'asr' },
  whisperBase: { name: 'sherpa-onnx-whisper-base', script: ['scripts/models/whisper/build.sh', '--dims', 'base'], kind: 'asr' },
} as const satisfies Record<string, Built>

export type BenchModel = keyof typeof MODELS

/**
 * The package folder of `model` in BENCH_MODELS_DIR, built first when missing (minutes on 2 cores; a build cut
 * short leaves nothing under the final name).
 */
export function benchModel(model: BenchModel): { dir: string; name: string; kind: 'tts' | 'asr' } {
  const { name, script, kind } = MODELS[model]
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
  return { dir, name, kind }
}

/**
 * Loads each package once in a check process, as a server does when it finds one (a verdict is kept per
 * package files): done before any measurement, so no server loads a model behind another one's figures.
 */
export async function checkedOnce(names: readonly string[]): Promise<void> {
  const checks = new ModelChecks(BENCH_MODELS_DIR)
  await checks.refresh()
  for (const name of names) {
    const pkg = await detectPackage(BENCH_MODELS_DIR, name)
    if (!pkg?.runnable) throw new Error(`${name} in ${BENCH_MODELS_DIR} does not run: ${pkg?.note ?? 'not a model package'}`)
    const verdict = await checks.check(pkg, await filesStamp(pkg.path), pkg.kind === 'tts' ? { tts: pkg.prepare! } : { asr: pkg.asr! })
    if (verdict && !verdict.ok) throw new Error(`${name}: the runtime refused it: ${verdict.reason}`)
  }
}
