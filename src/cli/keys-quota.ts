import type { Command } from 'commander'
import type { Deps } from '../deps.js'
import { LIMIT_NAMES, MAX_LIMIT, type LimitChanges, type LimitName } from '../services/account/limits.js'
import { WYOMING_PRINCIPAL } from '../api/wyoming/principal.js'
import { addConfigFlags } from './config-flags.js'

type WithDeps = (options: Record<string, unknown>, run: (deps: Deps) => Promise<void>) => Promise<void>

/** Each limit's flag (commander's camelCase option key is the limit's name in `QuotaLimits` order). */
const FLAGS: Record<LimitName, { flag: string; key: string; what: string }> = {
  concurrency: { flag: '--concurrency <n>', key: 'concurrency', what: 'requests and live sockets at once' },
  requestsPerMinute: { flag: '--rpm <n>', key: 'rpm', what: 'requests per minute' },
  charactersPerMonth: { flag: '--chars-month <n>', key: 'charsMonth', what: 'TTS characters per month (UTC)' },
  audioSecondsPerMonth: { flag: '--audio-seconds-month <n>', key: 'audioSecondsMonth', what: 'ASR audio seconds per month (UTC)' },
}
/** Options of these commands, kept out of the config flags. */
export const QUOTA_OPTION_KEYS = [...Object.values(FLAGS).map((f) => f.key), 'json', 'month']

/** `parla keys limits` and `parla keys usage`. */
export function registerQuotaCommands(keys: Command, withDeps: WithDeps): void {
  const limits = keys.command('limits')
    .description('show or set the limits of the account a key belongs to (all its keys share them)')
    .argument('<id>', `a key id, an account id, or '${WYOMING_PRINCIPAL.accountId}' (the Wyoming surface)`)
    .option('--json', 'print the limits as JSON')
  for (const name of LIMIT_NAMES) limits.option(FLAGS[name].flag, `${FLAGS[name].what}: a number, 'unlimited' (or 0), or 'default' (the quota* setting)`)
  addConfigFlags(limits).action(async (id: string, options: Record<string, unknown>) => {
    const changes = parseChanges(options)
    if (!changes) return
    await withDeps(options, async (deps) => {
      const accountId = await accountOf(deps, id)
      if (!accountId) {
        process.stderr.write(`parla: no key or account with id ${id}; see 'parla keys list'\n`)
        process.exitCode = 1
        return
      }
      if (Object.keys(changes).length > 0) await deps.quota.setLimits(accountId, changes)
      const { limits: now, own } = await deps.quota.limits(accountId)
      if (options.json) return void process.stdout.write(`${JSON.stringify({ accountId, limits: now, own }, null, 2)}\n`)
      process.stdout.write(`account ${accountId}\n`)
      for (const name of LIMIT_NAMES) {
        const value = now[name] === 0 ? 'unlimited' : String(now[name])
        process.stdout.write(`  ${FLAGS[name].flag.split(' ')[0]!.slice(2).padEnd(20)}${value.padEnd(12)}${own.includes(name) ? '' : '(default)'}\n`)
      }
    })
  })

  addConfigFlags(keys.command('usage').description('show what each key used, per month (UTC)'))
    .option('--month <YYYY-MM>', 'one month only')
    .option('--json', 'print the rows as JSON')
    .action(async (options: Record<string, unknown>) => {
      const month = options.month as string | undefined
      if (month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
        process.stderr.write(`parla: --month must look like 2026-11, got '${month}'\n`)
        process.exitCode = 2
        return
      }
      await withDeps(options, async (deps) => {
        const names = new Map((await deps.keys.list()).map((k) => [k.id, k.name]))
        const rows = (await deps.quota.keyUsageRows(month)).map((r) => ({ ...r, name: names.get(r.keyId) ?? '' }))
        if (options.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
        process.stdout.write(`${['MONTH', 'KEY', 'NAME', 'ACCOUNT', 'REQUESTS', 'CHARACTERS', 'ASR_SECONDS', 'TTS_SECONDS'].join('\t')}\n`)
        for (const r of rows) {
          process.stdout.write(`${[r.month, r.keyId, r.name, r.accountId, r.requests, r.characters, r.audioSeconds.toFixed(1), r.speechSeconds.toFixed(1)].join('\t')}\n`)
        }
      })
    })
}

/** The flags given, as changes; prints what is wrong and returns null for a bad value. */
function parseChanges(options: Record<string, unknown>): LimitChanges | null {
  const changes: LimitChanges = {}
  for (const name of LIMIT_NAMES) {
    const raw = options[FLAGS[name].key]
    if (raw === undefined) continue
    const text = String(raw).trim().toLowerCase()
    const value = text === 'default' ? null : text === 'unlimited' ? 0 : /^\d+$/.test(text) ? Number(text) : NaN
    if (Number.isNaN(value) || (value !== null && value > MAX_LIMIT)) {
      process.stderr.write(`parla: ${FLAGS[name].flag.split(' ')[0]} must be a whole number up to ${MAX_LIMIT}, 'unlimited' or 'default', got '${String(raw)}'\n`)
      process.exitCode = 2
      return null
    }
    changes[name] = value
  }
  return changes
}

/** A key's account, an account by id, or the Wyoming surface's account. */
async function accountOf(deps: Deps, id: string): Promise<string | undefined> {
  const key = (await deps.keys.list()).find((k) => k.id === id)
  if (key) return key.accountId
  if (id === WYOMING_PRINCIPAL.accountId) return id
  const account = await deps.db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()
  return account?.id
}
