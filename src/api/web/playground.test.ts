import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildWeb } from '../../../scripts/build-web.js'
import { startTestServer, type TestServer } from '../../../test/helpers/app.js'

let s: TestServer

beforeAll(async () => {
  await buildWeb()
  s = await startTestServer()
}, 60_000)

afterAll(async () => {
  await s?.close()
})

const get = (url: string, encoding?: string) => s.app.inject({ url, headers: encoding ? { 'accept-encoding': encoding } : {} })

describe('the playground files', () => {
  it('are public, served pre-compressed, and the first load is far under 300 KB transferred', async () => {
    const page = await get('/', 'gzip, deflate, br')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-encoding']).toBe('br')
    expect(page.headers['content-type']).toContain('text/html')
    const html = (await get('/')).body
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!).filter((u) => u !== '/docs')
    expect(assets.sort()).toEqual([expect.stringMatching(/^\/main\.js\?v=/), expect.stringMatching(/^\/style\.css\?v=/)])
    let transferred = page.rawPayload.length
    for (const url of assets) {
      const res = await get(url, 'br')
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-encoding']).toBe('br')
      expect(res.headers['cache-control']).toContain('immutable')
      transferred += res.rawPayload.length
    }
    expect(transferred).toBeLessThan(300 * 1024)
  })

  it('gzip for browsers without brotli, plain for clients that accept neither', async () => {
    expect((await get('/main.js', 'gzip')).headers['content-encoding']).toBe('gzip')
    const plain = await get('/main.js')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body).toContain('/v1/tts/stream/with-timestamp')
  })

  it('load nothing from elsewhere (works offline): no absolute URLs to other hosts', async () => {
    for (const url of ['/', '/main.js', '/style.css']) {
      expect((await get(url)).body).not.toMatch(/(?:src|href|url)\s*[=(]\s*["']?https?:\/\//i)
    }
  })
})
