import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'

describe('foundation: auth, health, unknown routes', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => s.close())

  it('answers health without a key', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/healthz' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
    const ready = (await s.app.inject({ method: 'GET', url: '/readyz' })).json()
    expect(ready).toMatchObject({ status: 'ok', database: 'ok', streams: { open: 0, queued: 0 } })
    // No request spoke yet: every engine waits for its first use.
    expect(Object.values(ready.engines).map((e) => (e as { state: string }).state)).toContain('idle')
  })

  it.each([
    [undefined, "Missing Authorization header; send 'Authorization: Bearer <API key>'"],
    ['Basic abc', "Authorization header must be 'Bearer <API key>'"],
    ['Bearer nope', 'Invalid API key'],
    ['Bearer parla_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'Invalid API key'],
  ])('rejects authorization %s with exactly {status, message}', async (header, message) => {
    const res = await s.app.inject({ method: 'GET', url: '/no-such-route', headers: header ? { authorization: header } : {} })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ status: 401, message })
  })

  it('answers unknown routes 404 and wrong methods 405 with Allow', async () => {
    const missing = await s.app.inject({ method: 'GET', url: '/v9/nothing', headers: s.asAlice })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toEqual({ status: 404, message: 'No route GET /v9/nothing; see /docs for the API' })
    const wrong = await s.app.inject({ method: 'DELETE', url: '/healthz', headers: s.asAlice })
    expect(wrong.statusCode).toBe(405)
    expect(wrong.headers.allow).toBe('GET, HEAD')
    expect(Object.keys(wrong.json()).sort()).toEqual(['message', 'status'])
  })

  it('revoked keys stop working', async () => {
    const { key, info } = await s.deps.keys.create('temp')
    const ok = await s.app.inject({ method: 'GET', url: '/v9/x', headers: { authorization: `Bearer ${key}` } })
    expect(ok.statusCode).toBe(404)
    expect(await s.deps.keys.revoke(info.id)).toBe(true)
    const res = await s.app.inject({ method: 'GET', url: '/v9/x', headers: { authorization: `Bearer ${key}` } })
    expect(res.statusCode).toBe(401)
  })

  it('serves the OpenAPI document and docs page publicly', async () => {
    const doc = await s.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(doc.statusCode).toBe(200)
    expect(doc.json().openapi).toMatch(/^3\./)
    const page = await s.app.inject({ method: 'GET', url: '/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
  })
})
