import type { SerializedError } from 'vitest'
import type { Reporter, TestModule } from 'vitest/node'

/**
 * Ends the run with one plain line, `N passed, N failed, N skipped`, that any CI log reader understands,
 * after Vitest's own summary. A test that never finished (its worker process crashed) counts as failed, and
 * errors outside any test are counted too: neither may hide behind "0 failed".
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[], errors: readonly SerializedError[]): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'skipped') skipped++
        else failed++
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++
    }
    const extra = [skipped > 0 ? `${skipped} skipped` : '', errors.length > 0 ? `${errors.length} errors outside tests` : '']
    process.stdout.write(`\n${[`${passed} passed`, `${failed} failed`, ...extra.filter(Boolean)].join(', ')}\n`)
  }
}
