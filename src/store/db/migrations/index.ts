import type { Migration, MigrationProvider } from 'kysely'
import * as m001 from './001-initial.js'
import * as m002 from './002-model-search.js'
import * as m003 from './003-cluster.js'
import * as m004 from './004-quotas.js'

/** Versioned migrations, applied in name order. Add new ones here; never edit an applied one. */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': m001,
  '002-model-search': m002,
  '003-cluster': m003,
  '004-quotas': m004,
}

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
}
