import type { ExpressionBuilder } from 'kysely'
import type { Db } from '../database.js'
import type { Database } from '../schema.js'

export interface ClaimedJob {
  readonly id: string
  readonly subject: string
  /** This run's number, from 1. */
  readonly attempt: number
}

/**
 * The job table's queries. Claiming is a conditional update ("take it if nobody holds a live lease"), which
 * both dialects run atomically: PostgreSQL re-checks the condition on the locked row, SQLite has one writer.
 * So of several nodes racing for a job exactly one gets it, with no dialect-specific locking.
 */
export function createJobRepository(db: Db) {
  const free = (now: string) => (eb: ExpressionBuilder<Database, 'jobs'>) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])

  return {
    /** Queues `subject` unless it is already queued or running (then nothing changes). */
    async add(kind: string, subject: string, now: string): Promise<void> {
      await db
        .insertInto('jobs')
        .values({ id: `${kind}:${subject}`, kind, subject, attempts: 0, run_after: now, lease_owner: null, lease_until: null, last_error: '', created_at: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute()
    },

    /** Takes the oldest due job nobody holds; undefined when there is none (or others took them first). */
    async claim(kind: string, owner: string, now: string, leaseUntil: string): Promise<ClaimedJob | undefined> {
      const due = await db
        .selectFrom('jobs')
        .select(['id', 'subject', 'attempts'])
        .where('kind', '=', kind)
        .where('run_after', '<=', now)
        .where(free(now))
        .orderBy('run_after')
        .limit(4)
        .execute()
      for (const job of due) {
        const taken = await db
          .updateTable('jobs')
          .set((eb) => ({ lease_owner: owner, lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
          .where('id', '=', job.id)
          .where(free(now))
          .executeTakeFirst()
        if (Number(taken.numUpdatedRows) === 1) return { id: job.id, subject: job.subject, attempt: Number(job.attempts) + 1 }
      }
      return undefined
    },

    /** Extends a lease this owner still holds; false when it lost it (it expired and another node took it). */
    async renew(id: string, owner: string, leaseUntil: string): Promise<boolean> {
      const r = await db.updateTable('jobs').set({ lease_until: leaseUntil }).where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },

    /** Done (or given up): the row goes, if this owner still holds it. */
    async finish(id: string, owner: string): Promise<void> {
      await db.deleteFrom('jobs').where('id', '=', id).where('lease_owner', '=', owner).execute()
    },

    /** Failed this time: free it again after `runAfter`. */
    async retry(id: string, owner: string, runAfter: string, error: string): Promise<void> {
      await db
        .updateTable('jobs')
        .set({ lease_owner: null, lease_until: null, run_after: runAfter, last_error: error.slice(0, 2000) })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute()
    },

    /** Shutdown: free it at once for another node, giving the attempt back. */
    async release(id: string, owner: string): Promise<void> {
      await db
        .updateTable('jobs')
        .set((eb) => ({ lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1) }))
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute()
    },

    /** Frees leases of `owner`, or every lease (a single node starting: nobody else can hold one). */
    async releaseLeases(kind: string, owner?: string): Promise<void> {
      let q = db.updateTable('jobs').set({ lease_owner: null, lease_until: null }).where('kind', '=', kind)
      if (owner !== undefined) q = q.where('lease_owner', '=', owner)
      await q.execute()
    },

    async count(kind: string): Promise<number> {
      const row = await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', kind).executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}

export type JobRepository = ReturnType<typeof createJobRepository>
