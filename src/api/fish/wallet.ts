import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Deps } from '../../deps.js'
import type { AccountAllowance } from '../../services/account/allowance.js'
import { errorResponses } from './model-schemas.js'

/**
 * The wire cannot say "no limit": the Python SDKs parse `credit` as a finite Decimal (pydantic refuses
 * `Infinity`) and `total`/`balance` as integers. An unlimited allowance is therefore sent as the largest
 * integer every client reads exactly (2^53 - 1, also in JavaScript), next to `unlimited: true`.
 */
export const UNLIMITED = Number.MAX_SAFE_INTEGER

const CreditQuery = Type.Object({ check_free_credit: Type.Optional(Type.Boolean()) })
/** Parla's own fields (the SDKs ignore fields they do not know): every limit and this month's usage. */
const Limits = Type.Object({
  concurrency: Type.Integer(),
  requests_per_minute: Type.Integer(),
  characters_per_month: Type.Integer(),
  audio_seconds_per_month: Type.Integer(),
}, { description: 'The account\'s limits; 0 means unlimited (docs/quotas.md)' })
const Usage = Type.Object({
  month: Type.String({ description: 'UTC, YYYY-MM' }),
  requests: Type.Integer(),
  characters: Type.Integer(),
  audio_seconds: Type.Number({ description: 'ASR input' }),
  speech_seconds: Type.Number({ description: 'TTS output' }),
}, { description: 'This month\'s usage, all keys of the account' })
const Stamps = {
  _id: Type.String(), user_id: Type.String(), created_at: Type.String(), updated_at: Type.String(), unlimited: Type.Boolean(),
  limits: Limits, usage: Usage,
}
const CreditEntity = Type.Object({ ...Stamps, credit: Type.String(), has_free_credit: Type.Optional(Type.Boolean()) })
const PackageEntity = Type.Object({
  ...Stamps,
  type: Type.String(),
  total: Type.Integer(),
  balance: Type.Integer(),
  finished_at: Type.String({ description: 'When the allowance ran out; empty while some is left' }),
})

const stamps = (a: AccountAllowance) => ({
  _id: a.accountId,
  user_id: a.accountId,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
  unlimited: a.credit === null,
  limits: {
    concurrency: a.limits.concurrency,
    requests_per_minute: a.limits.requestsPerMinute,
    characters_per_month: a.limits.charactersPerMonth,
    audio_seconds_per_month: a.limits.audioSecondsPerMonth,
  },
  usage: {
    month: a.usage.month,
    requests: a.usage.requests,
    characters: a.usage.characters,
    audio_seconds: round3(a.usage.audioSeconds),
    speech_seconds: round3(a.usage.speechSeconds),
  },
})
const round3 = (n: number) => Math.round(n * 1000) / 1000

/** `GET /wallet/self/api-credit` and `/wallet/self/package`: the account's remaining allowance, as the SDKs read it. */
export async function walletRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const tags = ['wallet']
  app.get<{ Querystring: { check_free_credit?: boolean } }>(
    '/wallet/self/api-credit',
    {
      schema: {
        summary: 'Remaining API credit of your account',
        description: `\`credit\` is the TTS characters left this month. No character limit is configured unless \`unlimited\` is false; unlimited shows as credit ${UNLIMITED}.`,
        tags,
        querystring: CreditQuery,
        response: { 200: CreditEntity, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const a = await deps.allowance.get(request.principal.accountId)
      return {
        ...stamps(a),
        credit: String(a.credit?.remaining ?? UNLIMITED),
        // Parla gives no free credit; answered only when asked, as the cloud does.
        ...(request.query.check_free_credit !== undefined && { has_free_credit: false }),
      }
    },
  )

  app.get(
    '/wallet/self/package',
    {
      schema: {
        summary: 'Your account\'s allowance as a package (total and balance)',
        description: `Unlimited accounts show type "unlimited" with total and balance ${UNLIMITED}.`,
        tags,
        response: { 200: PackageEntity, ...errorResponses(401) },
      },
    },
    async (request) => {
      const a = await deps.allowance.get(request.principal.accountId)
      const left = a.credit?.remaining ?? UNLIMITED
      return {
        ...stamps(a),
        type: a.credit ? 'quota' : 'unlimited',
        total: Math.floor(a.credit?.total ?? UNLIMITED),
        balance: Math.floor(left),
        // The legacy Python SDK requires a string here (null fails it).
        finished_at: a.credit && left <= 0 ? a.updatedAt : '',
      }
    },
  )
}
