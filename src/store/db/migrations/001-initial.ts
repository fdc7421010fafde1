import type { Kysely } from 'kysely'

/** Accounts, hashed API keys, voice models and the blobs each model owns. Portable DDL (SQLite and PostgreSQL). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('nickname', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()

  await db.schema
    .createTable('models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('cover_image', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('train_mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('state_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('languages', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('samples', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('quality', 'text', (c) => c.notNull())
    .addColumn('profile', 'text')
    .addColumn('builtin_voice', 'text')
    .addColumn('default_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mark_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('shared_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('task_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('score', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('models_visibility_created').on('models').columns(['visibility', 'created_at']).execute()
  await db.schema.createIndex('models_account').on('models').column('account_id').execute()
  await db.schema.createIndex('models_state').on('models').column('state').execute()

  await db.schema
    .createTable('model_blobs')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('model_blobs_model').on('model_blobs').column('model_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['model_blobs', 'models', 'api_keys', 'accounts']) await db.schema.dropTable(table).execute()
}
