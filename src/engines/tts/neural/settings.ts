/**
 * What the neural engine reads from the config. The engine registry's factories take only a process count,
 * so the app sets these once at startup (deps.ts) before the engine starts.
 */
export interface NeuralSettings {
  /** Folder of model packages (docs/models.md); empty: no neural voices. */
  readonly modelsDir: string
  /** Neural runtime processes: how many syntheses run at once. */
  readonly processes: number
  /** Inference threads per synthesis. */
  readonly threads: number
}

let current: NeuralSettings = { modelsDir: '', processes: 1, threads: 1 }

export function configureNeural(settings: NeuralSettings): void {
  current = settings
}

export const neuralSettings = (): NeuralSettings => current
