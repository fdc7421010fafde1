/**
 * Several real Parla processes on one PostgreSQL (issue 16): any node serves what another created; a node
 * killed mid-training leaves its job to another node, which finishes it (no model stays in `training`); and a
 * node drained behind a real nginx under streaming load fails no request.
 */
import { tmpdir } from 'node:os'
import { encode } from '@msgpack/msgpack'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialectFor, openDatabase } from '../src/store/db/database.js'
import { createKeyRepository } from '../src/store/db/repositories/keys.js'
import { toWav } from './support/wav.js'
import { freshPostgres, type FreshDatabase } from './support/postgres/fresh.js'
import { PASSAGES, speech } from './support/voice-speech.js'
import { createCluster } from './helpers/cluster.js'
import { startNginx, type Nginx } from './helpers/nginx.js'

const wavOf = async (text: string) => {
  const audio = await speech(text)
  return Buffer.from(toWav(audio.samples, audio.sampleRate)).toString('base64')
}

async function json(url: string, auth: object, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...auth, ...(init.body !== undefined && { 'content-type': 'application/json' }) },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** Polls until `done` says so (no deadline: the test timeout is the limit, so a slow machine only waits). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read()
    if (done(value)) return value
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('several nodes on one PostgreSQL', () => {
  let database: FreshDatabase
  let auth: { authorization: string }
  let cluster: ReturnType<typeof createCluster>
  let nginx: Nginx | undefined
  beforeAll(async () => {
    database = await freshPostgres()
    const db = await openDatabase(dialectFor(database.url, tmpdir()))
    const { key } = await createKeyRepository(db).create('tester')
    await db.destroy()
    auth = { authorization: `Bearer ${key}` }
    cluster = createCluster(database.url)
  })
  afterAll(async () => {
    await nginx?.stop()
    await cluster?.stopAll()
    await database?.drop()
  })

  it('a voice created on one node trains and speaks on another; nodes started together seed once', async () => {
    const [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')])
    const voice = await wavOf(PASSAGES.a)
    const created = await json(`${a.url}/model`, auth, { method: 'POST', body: { title: 'shared', voices: [voice], texts: [PASSAGES.a] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body._id as string
    const trained = await until(() => json(`${b.url}/model/${id}`, auth), (r) => r.body.state !== 'created' && r.body.state !== 'training')
    expect(trained.body).toMatchObject({ state: 'trained' })
    // B reads the sample A stored (shared blobs) and speaks with the voice A created.
    const sample = await fetch(`${b.url}/model/${id}/samples/0`, { headers: auth })
    expect(sample.status).toBe(200)
    expect(Buffer.from(await sample.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF')
    const spoken = await fetch(`${b.url}/v1/tts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/msgpack' },
      body: encode({ text: 'Hello from the other node.', format: 'wav', reference_id: id }),
    })
    expect(spoken.status).toBe(200)
    expect((await spoken.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
    // Both nodes seeded the built-in voices at once: each exists once.
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const { rows } = await client.query(`select id, count(*) as n from models where account_id = 'parla' group by id having count(*) > 1`)
    const seeded = await client.query(`select count(*)::int as n from models where account_id = 'parla'`)
    expect(rows).toEqual([])
    expect(seeded.rows[0].n).toBeGreaterThan(0)
    // And spoke each built-in voice's sample once between them (jobs on the shared queue), not once per node.
    const ready = (n: typeof a) => fetch(`${n.url}/readyz`).then((r) => r.json() as Promise<{ warming?: string[] }>)
    for (const n of [a, b]) await until(() => ready(n), (r) => !(r.warming ?? []).includes('built-in voice samples'))
    const samples = await client.query(`select count(*)::int as n from shared_blobs where key like 'models/%/sample-0.wav'`)
    await client.end()
    const madeBy = [a, b].map((n) => Number(/"made":(\d+)/.exec(n.log())?.[1] ?? 0))
    expect(samples.rows[0].n).toBe(seeded.rows[0].n)
    expect(madeBy[0]! + madeBy[1]!, `${a.log()}\n${b.log()}`).toBe(seeded.rows[0].n)
    for (const n of [a, b]) n.child.kill('SIGTERM')
    await Promise.all([a.exited, b.exited])
  })

  it('kill -9 of the node training a model: another node takes the job and finishes it', async () => {
    const lease = { jobLeaseSec: 2 }
    const a = await cluster.start('c', lease)
    // No transcripts: training runs ASR over ~30 s of speech, long enough to be caught mid-job.
    const voices = await Promise.all([PASSAGES.a, PASSAGES.b, PASSAGES.c].map(wavOf))
    const created = await json(`${a.url}/model`, auth, { method: 'POST', body: { title: 'orphaned', voices, train_mode: 'full' } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body._id as string
    const seen = await until(() => json(`${a.url}/model/${id}`, auth), (r) => r.body.state !== 'created')
    expect(seen.body.state).toBe('training')
    a.child.kill('SIGKILL')
    await a.exited

    const b = await cluster.start('d', lease)
    const done = await until(() => json(`${b.url}/model/${id}`, auth), (r) => r.body.state !== 'training')
    expect(done.body, b.log()).toMatchObject({ state: 'trained', state_reason: '' })
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const jobs = await client.query('select count(*)::int as n from jobs')
    await client.end()
    expect(jobs.rows[0].n).toBe(0)
    b.child.kill('SIGTERM')
    await b.exited
  })

  it('SIGTERM to one of two nodes behind nginx, under streaming load: every request completes', async () => {
    const settings = { shutdownTimeoutSec: 120 }
    const [a, b] = await Promise.all([cluster.start('e', settings), cluster.start('f', settings)])
    nginx = await startNginx([a.url, b.url])
    const lb = nginx.url
    const failures: string[] = []
    let completed = 0
    let afterExit = 0
    let aGone = false
    let stop = false
    const client = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${lb}/v1/tts`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/msgpack' },
            body: encode({ text: 'Streaming while a node drains. Every request has to finish.', format: 'wav' }),
          })
          const body = Buffer.from(await res.arrayBuffer())
          if (res.status !== 200 || body.length < 10_000) failures.push(`${res.status}: ${body.subarray(0, 200).toString()}`)
          else if (aGone) afterExit++
          else completed++
        } catch (err) {
          failures.push(String(err))
        }
      }
    }
    const clients = Array.from({ length: 4 }, client)
    await until(async () => completed + failures.length, (n) => n >= 8)
    a.child.kill('SIGTERM')
    const code = await a.exited
    aGone = true
    await until(async () => afterExit + failures.length, (n) => n >= 8)
    stop = true
    await Promise.all(clients)
    expect(failures).toEqual([])
    expect(code, a.log()).toBe(0)
    b.child.kill('SIGTERM')
    await b.exited
  })
})
