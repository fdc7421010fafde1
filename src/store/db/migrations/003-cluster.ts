import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * What several nodes on one PostgreSQL share besides the models: blob bodies (`blobStore=database`, `bytea`
 * on PostgreSQL, `blob` on SQLite) and the background job queue with its leases (src/services/jobs/).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob'
  await db.schema
    .createTable('shared_blobs')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('body', sql.raw(binary), (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('jobs_kind_run_after').on('jobs').columns(['kind', 'run_after']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').execute()
  await db.schema.dropTable('shared_blobs').execute()
}
