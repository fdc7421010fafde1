import type { Command } from 'commander'
import type { Deps } from '../deps.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'
import { QUOTA_OPTION_KEYS, registerQuotaCommands } from './keys-quota.js'

/** `parla keys create|list|revoke|limits|usage`: manage API keys and their quotas in the configured database. */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('manage API keys')

  addConfigFlags(keys.command('create').description('create an API key (printed once)'))
    .requiredOption('--name <name>', 'a name to tell the key apart')
    .option('--account <id>', 'add the key to an existing account instead of a new one')
    .action(async (options) => {
      await withDeps(options, async (deps) => {
        const { key, info } = await deps.keys.create(options.name, options.account)
        process.stdout.write(`${key}\n`)
        process.stderr.write(`created key ${info.id} (account ${info.accountId}); store it now, it is not shown again\n`)
      })
    })

  addConfigFlags(keys.command('list').description('list API keys')).action(async (options) => {
    await withDeps(options, async (deps) => {
      const rows = await deps.keys.list()
      process.stdout.write(`${['ID', 'NAME', 'ACCOUNT', 'PREFIX', 'CREATED', 'STATUS'].join('\t')}\n`)
      for (const k of rows) {
        process.stdout.write(`${[k.id, k.name, k.accountId, `${k.prefix}…`, k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'active'].join('\t')}\n`)
      }
    })
  })

  addConfigFlags(keys.command('revoke').description('revoke an API key by id').argument('<id>')).action(async (id: string, options) => {
    await withDeps(options, async (deps) => {
      if (!(await deps.keys.revoke(id))) {
        process.stderr.write(`parla: no active key with id ${id}; see 'parla keys list'\n`)
        process.exitCode = 1
        return
      }
      process.stdout.write(`revoked ${id}\n`)
    })
  })

  registerQuotaCommands(keys, withDeps)
}

async function withDeps(options: Record<string, unknown>, run: (deps: Deps) => Promise<void>) {
  const { name: _n, account: _a, ...rest } = options
  for (const key of QUOTA_OPTION_KEYS) delete rest[key]
  const config = configFromOptions(rest)
  const { createDeps } = await import('../deps.js')
  const deps = await createDeps(config)
  try {
    await run(deps)
  } finally {
    await deps.close()
  }
}
