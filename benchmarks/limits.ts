// `npm run bench -- --only limits` (./run.ts): request limits on beside off, and one caller past
// their budget beside another within theirs. The servers and the measuring are run.ts's.
import type pg from 'pg'
import { anotherCaller, startServer, stopServers, type BenchServer, type Measured, type Side } from './harness.js'

export interface LimitBench {
  readonly env: Record<string, string>
  /** The bench user's Authorization header. */
  readonly auth: Record<string, string>
  readonly pool: pg.Pool
  readonly measure: (server: BenchServer, side: Side, extraHeaders: Record<string, string>, length: number | { amount: number }, rate?: number) => Promise<Measured>
  readonly seconds: number
  readonly repeat: number
  readonly connections: number
  /** The run's get by key, list page 50 by key and create, on bench_orders. */
  readonly sides: Readonly<Record<'get by key' | 'list page 50 by key' | 'create', Side>>
}

/**
 * Request limits (docs/rate-limits.md): get, list and create on a server with limits on, whose
 * budgets no run reaches (each request still counts, in leases of 100 requests a row upsert), beside the
 * same server without limits, fresh servers taking turns second by second as the observability
 * scenarios do. Then on a server whose reads are 6,000 a minute per caller: a caller within
 * theirs (100 lists a second) alone, and beside another caller far past theirs (every answer a 429)
 * on as many connections as the other scenarios: the first caller's answers and latency.
 */
export async function limitScenarios (bench: LimitBench): Promise<void> {
  const { env, auth, pool, measure, sides } = bench
  const servers = {
    'limits off': await startServer('tablegate.js', env),
    'limits on': await startServer('tablegate.js', { ...env, BENCH_RATE_LIMITS: 'high' }),
  }
  const mean = (xs: number[]): number => xs.reduce((sum, x) => sum + x, 0) / xs.length
  try {
    console.log(`\n${`request limits (${bench.seconds * bench.repeat} rounds of 1 s)`.padEnd(34)}${'off r/s'.padStart(9)}${'on r/s'.padStart(9)}${'ratio'.padStart(7)}${'p99 off/on'.padStart(12)}${'CPU µs off/on'.padStart(15)}${'pg µs off/on'.padStart(14)}${'err'.padStart(5)}`)
    for (const [name, side] of Object.entries(sides)) {
      const runs = new Map<string, Measured[]>()
      for (const server of Object.values(servers)) await measure(server, side, auth, 1)
      for (let round = 0; round < bench.seconds * bench.repeat; round++) {
        for (const [which, server] of Object.entries(servers)) runs.set(which, [...(runs.get(which) ?? []), await measure(server, side, auth, 1)])
      }
      const [off, on] = [runs.get('limits off')!, runs.get('limits on')!]
      const pair = (key: keyof Measured, digits = 0): string => `${mean(off.map((m) => m[key])).toFixed(digits)}/${mean(on.map((m) => m[key])).toFixed(digits)}`
      const errors = [...off, ...on].reduce((sum, m) => sum + m.errors, 0)
      console.log(`${name.padEnd(34)}${mean(off.map((m) => m.rps)).toFixed(0).padStart(9)}${mean(on.map((m) => m.rps)).toFixed(0).padStart(9)}${(mean(on.map((m) => m.rps)) / mean(off.map((m) => m.rps))).toFixed(3).padStart(7)}${pair('p99').padStart(12)}${pair('cpuUs').padStart(15)}${pair('databaseUs').padStart(14)}${String(errors).padStart(5)}`)
    }
  } finally {
    await stopServers(Object.values(servers))
  }
  const low = await startServer('tablegate.js', { ...env, BENCH_RATE_LIMITS: 'low' })
  try {
    const within = { authorization: `Bearer ${(await anotherCaller(pool, `within-${Date.now()}@example.com`)).token}` }
    const spender = { authorization: `Bearer ${(await anotherCaller(pool, `spender-${Date.now()}@example.com`)).token}` }
    // A list: the rows are the bench user's, so another caller's get by key would be a 404.
    const list = sides['list page 50 by key']!
    // Past the budget before the measured runs: every answer of the spender's is a 429 from here on.
    await measure(low, list, spender, { amount: 6_000 })
    const alone = await measure(low, list, within, bench.seconds, 100)
    const [beside, spent] = await Promise.all([measure(low, list, within, bench.seconds, 100), measure(low, list, spender, bench.seconds)])
    console.log(`one caller over budget (reads 6,000/min each): the caller within theirs, 100 lists/s, alone: p50 ${alone.p50} ms, p99 ${alone.p99} ms, ${alone.errors} non-2xx; ` +
      `beside a caller answered 429 at ${spent.rps.toFixed(0)} r/s on ${bench.connections} connections: p50 ${beside.p50} ms, p99 ${beside.p99} ms, ${beside.errors} non-2xx (the spender's non-2xx: ${spent.errors})`)
  } finally {
    await stopServers([low])
  }
}
