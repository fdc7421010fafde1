import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Where `scripts/build-web.ts` puts the built playground (run by `npm start` / `npm test` via ensure-deps.sh). */
const DIST = fileURLToPath(new URL('../../../dist/web/', import.meta.url))
const FILES = { 'index.html': 'text/html; charset=utf-8', 'main.js': 'text/javascript; charset=utf-8', 'style.css': 'text/css; charset=utf-8' } as const
type Name = keyof typeof FILES

interface Asset {
  readonly plain: Buffer
  readonly br: Buffer
  readonly gz: Buffer
}

const NOT_BUILT =
  '<!doctype html><meta charset="utf-8"><title>Parla</title><p>The playground is not built. Run <code>npm start</code>, ' +
  'or <code>npx tsx scripts/build-web.ts</code>, then reload. The API is at <a href="/docs">/docs</a>.</p>'

/**
 * The browser playground at `/`: public static files (the page itself asks for the user's API key and calls
 * the public API with it). Read once at start and sent pre-compressed (brotli or gzip, as the browser accepts).
 */
export async function playgroundRoutes(app: FastifyInstance): Promise<void> {
  const assets = new Map<Name, Asset>()
  for (const name of Object.keys(FILES) as Name[]) {
    const read = (suffix: string) => readFile(join(DIST, name + suffix))
    const files = await Promise.all([read(''), read('.br'), read('.gz')]).catch(() => null)
    if (files) assets.set(name, { plain: files[0], br: files[1], gz: files[2] })
  }
  const options = { config: { public: true }, schema: { hide: true } }
  const send = (name: Name, request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets.get(name)
    if (!asset) return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT)
    const accepts = String(request.headers['accept-encoding'] ?? '')
    const [body, encoding] = /\bbr\b/.test(accepts) ? [asset.br, 'br'] : /\bgzip\b/.test(accepts) ? [asset.gz, 'gzip'] : [asset.plain, undefined]
    if (encoding) void reply.header('content-encoding', encoding)
    // The page is small and names its script and stylesheet with a version query, so only they may be cached.
    const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable'
    return reply
      .type(FILES[name])
      .header('vary', 'accept-encoding')
      .header('cache-control', cache)
      .header('x-content-type-options', 'nosniff')
      .send(body)
  }
  app.get('/', options, (request, reply) => send('index.html', request, reply))
  app.get('/main.js', options, (request, reply) => send('main.js', request, reply))
  app.get('/style.css', options, (request, reply) => send('style.css', request, reply))
}
