// A list's total_size_estimate once settled: what an estimate leaves for after its page (the
// planner's figure past the count's cap, a count again past its 30 s) lands once the page is
// answered (lib/read/estimate/), so tests that assert the figure, or count the statements of a
// later page, wait for it first.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { CallResult } from './app.js'

type Call = (method: 'GET', url: string) => Promise<CallResult>

/** GETs `url` until its estimate is `expected`, each answer on the way below it (a lower bound); the last answer. */
export async function settledPage (call: Call, url: string, expected: number): Promise<CallResult> {
  for (let n = 0; ; n++) {
    const page = await call('GET', url)
    assert.equal(page.status, 200, `${url}: ${JSON.stringify(page.body)}`)
    const estimate = page.body.total_size_estimate as number
    if (estimate === expected) return page
    assert.ok(estimate < expected, `${url}: ${estimate} on the way to ${expected}`)
    assert.ok(n < 100, `${url}: settles at ${expected}, says ${estimate}`)
    await sleep(5)
  }
}
