import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'

export interface FreshDatabase {
  /** The test PostgreSQL with `search_path` set to a new, empty schema: a database of its own, cheaply. */
  readonly url: string
  drop(): Promise<void>
}

/** A new empty schema in the run's PostgreSQL (test/support/postgres/global-setup.ts). */
export async function freshPostgres(): Promise<FreshDatabase> {
  const admin = inject('postgresUrl')
  const schema = `t_${randomBytes(8).toString('hex')}`
  await query(admin, `create schema ${schema}`)
  const url = new URL(admin)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return { url: url.toString(), drop: () => query(admin, `drop schema if exists ${schema} cascade`) }
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}
