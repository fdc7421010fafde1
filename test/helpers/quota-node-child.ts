/**
 * One "node" for the quota tests: opens the database at argv[2], admits a request of account argv[3] with a
 * lease of argv[4] ms, prints `admitted`, and keeps the lease renewed until it is killed.
 * Usage: node --import tsx quota-node-child.ts <sqlite file> <account id> <lease ms>
 */
import { createLogger } from '../../src/logger.js'
import { createQuotaService } from '../../src/services/account/quota.js'
import { dialectFor, openDatabase } from '../../src/store/db/database.js'
import { createQuotaRepository } from '../../src/store/db/repositories/quota.js'
import { UNLIMITED_LIMITS } from '../../src/services/account/limits.js'

const [file, accountId, leaseMs] = process.argv.slice(2) as [string, string, string]
const db = await openDatabase(dialectFor(`sqlite:${file}`, '.'))
const quota = createQuotaService({ repo: createQuotaRepository(db), defaults: UNLIMITED_LIMITS, logger: createLogger('silent'), leaseMs: Number(leaseMs) })
await quota.admit({ accountId, keyId: 'child' })
process.stdout.write('admitted\n')
// The renewal timer is unref'd (it never keeps a server up by itself); this keeps the process alive.
setInterval(() => {}, 1 << 30)
