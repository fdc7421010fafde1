import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * Blob bodies in the database (`blobStore=database`): every node of a cluster on one PostgreSQL sees the same
 * voice samples and covers without a shared filesystem. `bytea` on PostgreSQL, `blob` on SQLite.
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shared_blobs').execute()
}
