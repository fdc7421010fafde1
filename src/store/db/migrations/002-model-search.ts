import { sql, type Kysely } from 'kysely'

/**
 * What `GET /model` filters and sorts on. Tags and languages get their own tables (portable, indexable
 * "has any of" filters); the `tags`/`languages` JSON columns stay the serialized copy the entity reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('models').addColumn('title_search', 'text', (c) => c.notNull().defaultTo('')).execute()
  await db.schema.alterTable('models').addColumn('title_language', 'text', (c) => c.notNull().defaultTo('')).execute()
  await db.schema
    .alterTable('models')
    .addColumn('enhance_audio_quality', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await db.schema
    .createIndex('models_public_score')
    .on('models')
    .columns(['visibility', 'score', 'created_at', 'id'])
    .execute()
  await db.schema
    .createIndex('models_public_tasks')
    .on('models')
    .columns(['visibility', 'task_count', 'created_at', 'id'])
    .execute()

  for (const [table, column] of [
    ['model_tags', 'tag'],
    ['model_languages', 'language'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
      .addColumn(column, 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['model_id', column])
      .execute()
    await db.schema.createIndex(`${table}_${column}`).on(table).columns([column, 'model_id']).execute()
  }
  // Rows written before this migration: make them findable by title.
  await sql`update models set title_search = lower(title)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('model_languages').execute()
  await db.schema.dropTable('model_tags').execute()
  await db.schema.dropIndex('models_public_tasks').execute()
  await db.schema.dropIndex('models_public_score').execute()
  for (const column of ['enhance_audio_quality', 'title_language', 'title_search']) {
    await db.schema.alterTable('models').dropColumn(column).execute()
  }
}
