import type { FastifyInstance, FastifyReply, FastifySchemaCompiler } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { toEntity } from '../../services/models/entity.js'
import { getOrAlias } from '../../services/models/voice-aliases.js'
import type { StoredFile } from '../../services/models/service.js'
import type { ListModelsQuery as ListQuery } from '../../store/model-types.js'
import { readBody } from './model-body.js'
import { parseCreate, parseUpdate } from './model-input.js'
import {
  CreateModelBody,
  errorResponses,
  ListModelsQuery,
  ModelEntity,
  ModelIdParams,
  ModelList,
  SampleParams,
  StatusOk,
  UpdateModelBody,
} from './model-schemas.js'

const BODY_TYPES = [
  'application/json',
  'application/msgpack',
  'application/x-msgpack',
  'application/vnd.msgpack',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]
const BODY_TYPES_HINT = 'send multipart/form-data, application/json, application/msgpack or application/x-www-form-urlencoded'

/** Query lists: repeated, `name[]=` and comma-joined forms, merged. */
const queryList = (...values: (string[] | undefined)[]) =>
  values.flatMap((v) => v ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)

/** `/model` CRUD plus the sample and cover files the entity links to. Access rules live in the service. */
export async function modelRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const limits = { maxUploadBytes: deps.config.maxUploadBytes, maxUploadFiles: deps.config.maxUploadFiles }
  const models = deps.models
  // Bodies carry files in four encodings, so the handler reads and checks them (model-input.ts); the body
  // schemas are there for the OpenAPI document. Path and query still go through the app's validator.
  const parent = app.validatorCompiler
  if (!parent) throw new Error('modelRoutes: register the validators (installValidators) first')
  const paramsOnly: FastifySchemaCompiler<unknown> = (req) => (req.httpPart === 'body' ? () => true : parent(req))
  const tags = ['model']

  app.get<{ Querystring: ListModelsQuery & Record<string, string[] | undefined> }>(
    '/model',
    {
      schema: {
        summary: 'List voice models',
        tags,
        querystring: ListModelsQuery,
        response: { 200: ModelList, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const q = request.query
      const query: ListQuery = {
        pageSize: q.page_size,
        pageNumber: q.page_number,
        ...(q.title ? { title: q.title } : {}),
        tags: queryList(q.tag, q['tag[]']),
        self: q.self,
        ...(q.author_id ? { authorId: q.author_id } : {}),
        languages: queryList(q.language, q['language[]']),
        titleLanguages: queryList(q.title_language, q['title_language[]']),
        sortBy: q.sort_by,
      }
      const page = await models.list(request.principal.accountId, query)
      return { total: page.total, items: page.items.map(toEntity) }
    },
  )

  app.post(
    '/model',
    {
      validatorCompiler: paramsOnly,
      schema: {
        summary: 'Create a voice model from one or more audio samples',
        description: 'Answers 201 with the model in state "created"; a background job then moves it to "trained" or "failed".',
        tags,
        body: CreateModelBody,
        response: { 201: ModelEntity, ...errorResponses(400, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      checkContentType(request.headers['content-type'])
      const input = parseCreate(await readBody(request, limits), limits)
      const model = await models.create(request.principal.accountId, input)
      return reply.code(201).send(toEntity(model))
    },
  )

  app.get<{ Params: { id: string } }>(
    '/model/:id',
    {
      schema: { summary: 'Read a voice model', tags, params: ModelIdParams, response: { 200: ModelEntity, ...errorResponses(401, 404, 422) } },
    },
    // An alias (a client's default cloud voice) answers the model it speaks with.
    async (request) => toEntity(await getOrAlias(models.get, deps.aliases, request.principal.accountId, request.params.id)),
  )

  app.patch<{ Params: { id: string } }>(
    '/model/:id',
    {
      validatorCompiler: paramsOnly,
      schema: {
        summary: 'Change title, description, cover image, visibility or tags of your voice model',
        tags,
        params: ModelIdParams,
        body: UpdateModelBody,
        response: { 200: StatusOk, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    async (request) => {
      checkContentType(request.headers['content-type'])
      const input = parseUpdate(await readBody(request, limits), limits)
      await models.update(request.principal.accountId, request.params.id, input)
      return { status: 'ok' as const }
    },
  )

  app.delete<{ Params: { id: string } }>(
    '/model/:id',
    {
      schema: {
        summary: 'Delete your voice model and its files',
        tags,
        params: ModelIdParams,
        response: { 200: StatusOk, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      await models.remove(request.principal.accountId, request.params.id)
      return { status: 'ok' as const }
    },
  )

  app.get<{ Params: { id: string; n: number } }>(
    '/model/:id/samples/:n',
    { schema: { summary: 'Download a stored voice sample', tags, params: SampleParams, response: errorResponses(401, 404, 422) } },
    async (request, reply) => {
      const { id, n } = request.params
      return sendFile(reply, await models.sample(request.principal.accountId, id, n))
    },
  )

  app.get<{ Params: { id: string } }>(
    '/model/:id/cover',
    { schema: { summary: 'Download the cover image', tags, params: ModelIdParams, response: errorResponses(401, 404, 422) } },
    async (request, reply) => sendFile(reply, await models.cover(request.principal.accountId, request.params.id)),
  )
}

/** Fastify parses text/plain too; `/model` bodies must be one of the four Fish encodings. */
function checkContentType(header: string | undefined): void {
  if (header === undefined) return
  const type = header.split(';')[0]!.trim().toLowerCase()
  if (!BODY_TYPES.includes(type)) {
    throw new SpeechError('unsupported_media_type', `Unsupported Content-Type '${type}'; ${BODY_TYPES_HINT}`)
  }
}

function sendFile(reply: FastifyReply, file: StoredFile) {
  return reply
    .type(file.contentType)
    .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
    .header('cache-control', 'private, max-age=3600')
    .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength))
}
