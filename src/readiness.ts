/**
 * What the server is still doing before it is fully ready (warm-up runs in the background after `listen`),
 * and whether it is shutting down. `/readyz` reports it.
 */
export interface Readiness {
  /** Lists `name` as warming until `task` settles; returns `task`. */
  track<T>(name: string, task: Promise<T>): Promise<T>
  /** Names of warm-up tasks still running, in start order. */
  warming(): string[]
  /** Set once shutdown begins: the server finishes what it has and takes nothing new. */
  draining: boolean
}

export function createReadiness(): Readiness {
  const running = new Map<string, number>()
  return {
    draining: false,
    track(name, task) {
      running.set(name, (running.get(name) ?? 0) + 1)
      const done = () => {
        const left = (running.get(name) ?? 1) - 1
        if (left > 0) running.set(name, left)
        else running.delete(name)
      }
      task.then(done, done)
      return task
    },
    warming: () => [...running.keys()],
  }
}
