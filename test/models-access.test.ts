import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DIALECTS, startTestServer, type TestServer } from './helpers/app.js'
import { createModel } from './helpers/models.js'

const VISIBILITIES = ['public', 'unlist', 'private'] as const
type V = (typeof VISIBILITIES)[number]

/** What the other account (bob) gets for alice's model; the owner always gets 200. */
const OTHER = {
  public: { get: 200, listed: true, sample: 200, patch: 403, delete: 403 },
  unlist: { get: 200, listed: false, sample: 200, patch: 403, delete: 403 },
  private: { get: 404, listed: false, sample: 404, patch: 404, delete: 404 },
} as const

describe.each(DIALECTS)('%s: /model visibility between two accounts', (dialect) => {
  let s: TestServer
  const ids = {} as Record<V, string>
  beforeAll(async () => {
    s = await startTestServer({}, {}, dialect)
    for (const v of VISIBILITIES) ids[v] = (await createModel(s, s.asAlice, { title: `alice ${v}`, visibility: v, tags: ['shared'] }))._id
  })
  afterAll(async () => s.close())

  const call = (method: 'GET' | 'PATCH' | 'DELETE', url: string, who: { authorization: string }, payload?: object) =>
    s.app.inject({ method, url, headers: { ...who, ...(payload ? { 'content-type': 'application/json' } : {}) }, ...(payload ? { payload } : {}) })

  const notFound = (id: string) => ({ status: 404, message: `Voice model '${id}' not found` })
  const forbidden = (id: string) => ({ status: 403, message: `Voice model '${id}' belongs to another account; only its owner may change or delete it` })

  it.each(VISIBILITIES)('%s: GET and sample download by owner and by another account', async (v) => {
    const id = ids[v]
    const own = await call('GET', `/model/${id}`, s.asAlice)
    expect(own.statusCode).toBe(200)
    expect(own.json().visibility).toBe(v)
    expect((await call('GET', `/model/${id}/samples/0`, s.asAlice)).statusCode).toBe(200)
    const other = await call('GET', `/model/${id}`, s.asBob)
    expect(other.statusCode).toBe(OTHER[v].get)
    if (OTHER[v].get === 404) expect(other.json()).toEqual(notFound(id))
    else expect(other.json()._id).toBe(id)
    const sample = await call('GET', `/model/${id}/samples/0`, s.asBob)
    expect(sample.statusCode).toBe(OTHER[v].sample)
    if (OTHER[v].sample === 404) expect(sample.json()).toEqual(notFound(id))
  })

  it('lists: others see only public; the owner sees public without self and everything with self=true', async () => {
    const listed = async (who: { authorization: string }, query: string) =>
      ((await call('GET', `/model?tag=shared${query}`, who)).json().items as any[]).map((m) => m._id).sort()
    expect(await listed(s.asBob, '')).toEqual([ids.public])
    expect(await listed(s.asBob, `&author_id=${s.aliceAccount}`)).toEqual([ids.public])
    expect(await listed(s.asBob, '&self=true')).toEqual([])
    expect(await listed(s.asAlice, '')).toEqual([ids.public])
    expect(await listed(s.asAlice, '&self=true')).toEqual(Object.values(ids).sort())
    for (const v of VISIBILITIES) expect((await listed(s.asBob, '')).includes(ids[v])).toBe(OTHER[v].listed)
  })

  it.each(VISIBILITIES)('%s: PATCH and DELETE by another account are refused and change nothing', async (v) => {
    const id = ids[v]
    const patch = await call('PATCH', `/model/${id}`, s.asBob, { title: 'hijacked' })
    expect(patch.statusCode).toBe(OTHER[v].patch)
    expect(patch.json()).toEqual(OTHER[v].patch === 403 ? forbidden(id) : notFound(id))
    const del = await call('DELETE', `/model/${id}`, s.asBob)
    expect(del.statusCode).toBe(OTHER[v].delete)
    expect(del.json()).toEqual(OTHER[v].delete === 403 ? forbidden(id) : notFound(id))
    const still = await call('GET', `/model/${id}`, s.asAlice)
    expect(still.json().title).toBe(`alice ${v}`)
    // The upload is still there (training may have stored its enhanced copy next to it).
    expect(await s.deps.blobs.list(`models/${id}/`)).toContain(`models/${id}/voice-0.wav`)
  })

  it.each(VISIBILITIES)('%s: the owner may PATCH and DELETE', async (v) => {
    const id = (await createModel(s, s.asAlice, { title: `own ${v}`, visibility: v }))._id
    const patch = await call('PATCH', `/model/${id}`, s.asAlice, { title: 'renamed', visibility: 'public' })
    expect(patch.statusCode).toBe(200)
    expect(patch.json()).toEqual({ status: 'ok' })
    expect((await call('GET', `/model/${id}`, s.asBob)).json()).toMatchObject({ title: 'renamed', visibility: 'public' })
    const del = await call('DELETE', `/model/${id}`, s.asAlice)
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({ status: 'ok' })
    expect((await call('GET', `/model/${id}`, s.asAlice)).json()).toEqual(notFound(id))
  })

  it('making a public model private hides it from others at once', async () => {
    const id = (await createModel(s, s.asAlice, { title: 'fleeting', visibility: 'public' }))._id
    expect((await call('GET', `/model/${id}`, s.asBob)).statusCode).toBe(200)
    await call('PATCH', `/model/${id}`, s.asAlice, { visibility: 'private' })
    expect((await call('GET', `/model/${id}`, s.asBob)).json()).toEqual(notFound(id))
    expect((await call('PATCH', `/model/${id}`, s.asBob, { title: 'x' })).statusCode).toBe(404)
  })
})
