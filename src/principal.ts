/** Who is calling: the account an API key belongs to, and the key. Set by `api/auth.ts` on every request. */
export interface Principal {
  readonly accountId: string
  readonly keyId: string
}
