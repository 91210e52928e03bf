// `npm run bench -- --only limits` (./run.ts): request limits on beside off, and one caller past
// their budget beside another within theirs. The servers and the measuring are run.ts's.
import type pg from 'pg'
import { anotherCaller, pairSpread, startServer, stopServers, takeTurns, type BenchServer, type Measured, type Side } from './harness.js'

export interface LimitBench {
  readonly env: Record<string, string>
  /** The bench user's Authorization header. */
  readonly auth: Record<string, string>
  readonly pool: pg.Pool
  readonly measure: (server: BenchServer, side: Side, extraHeaders: Record<string, string>, length: number | { amount: number }, rate?: number) => Promise<Measured>
  /** A server's node arguments for `--profile`: a CPU profile in the named folder. */
  readonly profiled: (folder: string) => string[]
  /** `--only "limits: create"`: the sides whose name starts so, and no over-budget scenario; all of them without. */
  readonly only: string | undefined
  readonly seconds: number
  readonly repeat: number
  readonly connections: number
  /** The run's get by key, list page 50 by key and create, on bench_orders. */
  readonly sides: Readonly<Record<'get by key' | 'list page 50 by key' | 'create', Side>>
}

/**
 * Request limits (docs/rate-limits.md): get, list and create on a server with limits on, whose
 * budgets no run reaches (each request still counts, in leases of 100 requests a row upsert), beside the
 * same server without limits, taking turns second by second as the observability scenarios do,
 * on a fresh pair of servers for each repeat. Then on a server whose reads are 6,000 a minute per caller: a caller within
 * theirs (100 lists a second) alone, and beside another caller far past theirs (every answer a 429)
 * on as many connections as the other scenarios: the first caller's answers and latency.
 */
export async function limitScenarios (bench: LimitBench): Promise<void> {
  const { env, auth, pool, measure, sides } = bench
  const mean = (xs: number[]): number => xs.reduce((sum, x) => sum + x, 0) / xs.length
  // By side, each repeat's rounds by server: a fresh pair of servers for each repeat, as a process
  // keeps its start's luck (code and heap placement, what the JIT made of its first requests) for
  // its whole life, so one pair is one draw however long it is measured.
  const which = (bench.only ?? '').replace(/^limits[\s:,]*/, '')
  const chosen = Object.entries(sides).filter(([name]) => name.startsWith(which))
  const runs = new Map(chosen.map(([name]) => [name, [] as Array<{ off: Measured[], on: Measured[] }>]))
  for (let r = 0; r < bench.repeat; r++) {
    const off = await startServer('tablegate.js', env, bench.profiled('limits-off'))
    const on = await startServer('tablegate.js', { ...env, BENCH_RATE_LIMITS: 'high' }, bench.profiled('limits-on'))
    try {
      for (const [name, side] of chosen) {
        // Warmed as long as they are measured: a new process grows its heap's young generation
        // with its load over seconds, and one measured before that is measured at its start.
        for (const server of [off, on]) await measure(server, side, auth, bench.seconds)
        const turns = await takeTurns([['off', async () => await measure(off, side, auth, 1)], ['on', async () => await measure(on, side, auth, 1)]] as const, bench.seconds)
        runs.get(name)!.push({ off: turns.get('off')!, on: turns.get('on')! })
      }
    } finally {
      await stopServers([off, on])
    }
  }
  console.log(`\n${`request limits (${bench.repeat} pair(s) of fresh servers, ${bench.seconds * bench.repeat} rounds of 1 s)`.padEnd(34)}${'off r/s'.padStart(9)}${'on r/s'.padStart(9)}${'ratio'.padStart(7)}${'pairs'.padStart(12)}${'p99 off/on'.padStart(12)}${'CPU µs off/on'.padStart(15)}${'pg µs off/on'.padStart(14)}${'err'.padStart(5)}`)
  for (const [name, pairs] of runs) {
    const off = pairs.flatMap((p) => p.off)
    const on = pairs.flatMap((p) => p.on)
    const pair = (key: keyof Measured, digits = 0): string => `${mean(off.map((m) => m[key])).toFixed(digits)}/${mean(on.map((m) => m[key])).toFixed(digits)}`
    const errors = [...off, ...on].reduce((sum, m) => sum + m.errors, 0)
    // Each pair's own ratio: the spread the mean is taken over.
    const ratios = pairs.map((p) => mean(p.on.map((m) => m.rps)) / mean(p.off.map((m) => m.rps)))
    console.log(`${name.padEnd(34)}${mean(off.map((m) => m.rps)).toFixed(0).padStart(9)}${mean(on.map((m) => m.rps)).toFixed(0).padStart(9)}${(mean(on.map((m) => m.rps)) / mean(off.map((m) => m.rps))).toFixed(3).padStart(7)}` +
      `${pairSpread(ratios).padStart(12)}${pair('p99').padStart(12)}${pair('cpuUs').padStart(15)}${pair('databaseUs').padStart(14)}${String(errors).padStart(5)}`)
  }
  if (which !== '') return
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
