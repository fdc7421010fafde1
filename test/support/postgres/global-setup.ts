/**
 * Vitest global setup: the PostgreSQL the tests' PostgreSQL runs use. `PARLA_TEST_DATABASE_URL` names one
 * (an admin URL: tests create and drop schemas in it); unset, a throwaway server starts for this run.
 */
import type { TestProject } from 'vitest/node'
import { startThrowawayPostgres } from './throwaway.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const configured = process.env.PARLA_TEST_DATABASE_URL
  if (configured) {
    project.provide('postgresUrl', configured)
    return undefined
  }
  const server = await startThrowawayPostgres()
  project.provide('postgresUrl', server.url)
  // Vitest ends on Ctrl-C or SIGTERM with process.exit(), skipping this teardown: stop the server on the way out.
  const onExit = () => server.stopNow()
  process.once('exit', onExit)
  return async () => {
    process.off('exit', onExit)
    await server.stop()
  }
}
