import { decode, ExtensionCodec } from '@msgpack/msgpack'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import { errorCodes, type FastifyInstance } from 'fastify'
import { SpeechError } from '../errors.js'
import { collectBytes } from './read-bytes.js'
import type { Config } from '../config/schema.js'

const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS'])
const MSGPACK_TYPES = ['application/msgpack', 'application/x-msgpack', 'application/vnd.msgpack']

/**
 * msgpack-lite, the encoder of the npm `fish-audio-sdk`, sends a `Buffer` as bin but a plain `Uint8Array` (what
 * `fetch().arrayBuffer()` code passes) as extension type 0x12 holding the same bytes. Both are read as bytes.
 */
const MSGPACK_LITE_UINT8ARRAY = 0x12
const extensionCodec = new ExtensionCodec()
extensionCodec.register({ type: MSGPACK_LITE_UINT8ARRAY, encode: () => null, decode: (data) => data })

/**
 * Request bodies the Fish surface accepts: JSON (Fastify's own parser), MessagePack, url-encoded forms
 * (repeated keys become arrays) and multipart (parsed by the routes that take files). Anything else is 415.
 */
export async function registerBodyParsers(app: FastifyInstance, config: Config): Promise<void> {
  // Some clients (the n8n Fish node) send `Content-Type: application/json` on every request, DELETE included,
  // with no body. Where the method carries no body, an empty one is no body; elsewhere it stays a 400.
  const json = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && BODILESS_METHODS.has(request.method)) return done(null, undefined)
    json(request, body as string, done)
  })
  // Read as a stream into one buffer (collectBytes), not with `parseAs: 'buffer'`: MessagePack bodies carry
  // audio (ASR uploads, inline references) that would otherwise be held twice while the body is read. The
  // size limit is the route's, as Fastify's own parsers apply it.
  app.addContentTypeParser(MSGPACK_TYPES, (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? config.maxBodyBytes
    const tooLarge = () => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
    if (Number(request.headers['content-length']) > limit) return done(tooLarge())
    collectBytes(payload, limit, tooLarge).then((bytes) => {
      if (bytes.length === 0 && BODILESS_METHODS.has(request.method)) return done(null, undefined)
      if (bytes.length === 0) return done(new SpeechError('bad_request', 'Body is empty but Content-Type is MessagePack; send a MessagePack map'))
      try {
        done(null, decode(bytes, { useBigInt64: false, extensionCodec }))
      } catch (err) {
        done(new SpeechError('bad_request', `Body is not valid MessagePack: ${(err as Error).message}`))
      }
    }, (err: Error & { code?: string }) => {
      // A client that goes away mid-body ("aborted") is a client error, as with Fastify's own parsers.
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return done(err)
      done(new SpeechError('bad_request', `The MessagePack body could not be read (${err.message}); send the whole body`))
    })
  })
  await app.register(formbody, { bodyLimit: config.maxBodyBytes })
  await app.register(multipart, {
    limits: {
      fileSize: config.maxUploadBytes,
      files: config.maxUploadFiles + 1, // voices plus a cover image
      fields: 200,
      fieldSize: 1024 * 1024,
      parts: config.maxUploadFiles + 201,
    },
    throwFileSizeLimit: true,
  })
}
