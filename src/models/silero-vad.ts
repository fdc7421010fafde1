import { readdir, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { readOnnxSignature } from './onnx-signature.js'
import type { ModelPackage } from './types.js'

/** A Silero VAD model as its project publishes it (`silero_vad.onnx`), alone or in a folder of its own. */
export const SILERO_VAD_NAME = /^silero[_-]?vad.*\.onnx$/i

/**
 * A Silero VAD package: the `.onnx` file itself, or a folder holding one. What can be checked without loading
 * is checked here: the file is a whole ONNX model whose graph takes Silero's inputs (`input`, `sr`, and its
 * recurrent state); one that is not is listed broken with the reason.
 */
export async function detectSileroVad(base: { id: string; path: string }, model: string): Promise<ModelPackage> {
  const file = basename(model)
  const known = { ...base, family: 'silero-vad', kind: 'vad', languages: [], speakers: [] } as const
  const broken = (note: string): ModelPackage => ({ ...known, runnable: false, broken: true, note })
  let inputs: readonly string[]
  try {
    inputs = (await readOnnxSignature(model)).inputs.map((v) => v.name)
  } catch (err) {
    return broken(`${file} ${(err instanceof Error ? err.message : String(err)).replace(`${model} `, '')}; download silero_vad.onnx again`)
  }
  if (!inputs.includes('input') || !inputs.includes('sr')) {
    return broken(`${file} is not a Silero VAD graph (its inputs are ${inputs.join(', ') || 'none'}; Silero's are input, state, sr)`)
  }
  return { ...known, runnable: true, vad: { model } }
}

/** The Silero VAD package in `modelsDir` (the first by name if there are several), or undefined. */
export async function findSileroVad(modelsDir: string): Promise<ModelPackage | undefined> {
  const names = await readdir(modelsDir).catch(() => [] as string[])
  for (const name of names.filter((n) => /silero[_-]?vad/i.test(n)).sort()) {
    const found = await sileroVadAt(modelsDir, name).catch(() => undefined)
    if (found) return found
  }
  return undefined
}

/** The entry `name` of `modelsDir` as a Silero VAD package, or null when it is not one. */
export async function sileroVadAt(modelsDir: string, name: string): Promise<ModelPackage | null> {
  const path = join(modelsDir, name)
  const info = await stat(path)
  if (info.isFile()) return SILERO_VAD_NAME.test(name) ? detectSileroVad({ id: name, path }, path) : null
  if (!info.isDirectory()) return null
  const onnx = (await readdir(path)).filter((f) => f.endsWith('.onnx'))
  return onnx.length === 1 && SILERO_VAD_NAME.test(onnx[0]!) ? detectSileroVad({ id: name, path }, join(path, onnx[0]!)) : null
}
