import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance, FastifySchema } from 'fastify'
import type { ValidationIssue } from '../errors.js'
import { validationIssues } from './error-wire.js'

/**
 * Two validators. Query strings, path params and headers are text, so they are coerced to the schema's
 * types. Bodies are not coerced: JSON and MessagePack carry types, and coercion would turn a `null`
 * into `0` or `""` instead of "absent".
 */
function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options })
  addFormats.default(ajv)
  return ajv
}

export function installValidators(app: FastifyInstance): void {
  const textual = makeAjv({ coerceTypes: 'array' })
  const body = makeAjv({ coerceTypes: false })
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : textual
    return ajv.compile(schema as FastifySchema & object)
  })
}

/** A body validator outside a route (WebSocket frames). Returns Fish 422 issues, empty when valid. */
export function compileBodyValidator(schema: object): (value: unknown) => ValidationIssue[] {
  const validate = makeAjv({ coerceTypes: false }).compile(schema)
  return (value) => (validate(value) ? [] : validationIssues('body', (validate.errors ?? []) as never))
}
