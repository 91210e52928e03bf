// `npm run bench [-- --rows 1000000 --seconds 5 --repeat 2]`: tablegate beside a hand-written
// Fastify + pg floor, same database, same scenarios, alternating, after a warm-up. Servers run in
// their own processes pinned to core 0, PostgreSQL and this load generator to core 1; server and
// PostgreSQL CPU come from /proc. tablegate runs twice: with its own login's tokens (which name
// their key, `kid`) and with another issuer's tokens that name none. `--only scale-out`: 2
// processes behind PgBouncer against 1 direct (needs pgbouncer installed). `--only relations`: a
// page plain, with related records embedded, and filtered across a relation, each beside the
// floor's. `--only changes`: the change feed (./changes.ts: writes with the change log on and off,
// 1,000 streams' delivery, the database's time per change as streams grow), on a PostgreSQL of its
// own. `--only limits`: get, list and create with request limits on (budgets never reached)
// beside off, then one caller far over its read budget beside another within theirs. `--only
// warmup`: the 1st to 100th request of list shapes new to a server (./warmup.ts; `--round-trip`:
// the new shapes also behind a guard that only sends `SELECT 1`). `--baseline DIR`: the tablegate of another checkout, built (`npm run build` there),
// measured in the same run, turn by turn with this one, and printed before → after: a change's
// cost under the same noise. `--only relations --instructions`: the same questions' instructions a
// request, each server under valgrind's callgrind (./instructions.ts), instead of their throughput.
import { execFileSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { RELATION_COUNTRIES, relationCountry, seedCards, seedOrders, seedRelations } from './bench-orders.js'
import { AUTH_SECRET, benchCaller, checkoutServer, type Context, type Measured, type Side, heapMb, patchRows, pinLoadGenerator, pinned, pairSpread, pinnedPostmaster, postgresTicks, postgresTicksSince, processTreeTicks, roundsMeasured, rssMb, startServer, stopServers, takeTurns, type BenchServer } from './harness.js'
import { benchIssuer } from './issuer.js'
import { startPgBouncers } from '../test/helpers/pgbouncer.js'
import { CHANGE_DEFAULTS, changeScenarios } from './changes.js'
import { limitScenarios } from './limits.js'
import { warmupScenarios } from './warmup.js'
import { instructionScenarios } from './instructions.js'

const { values: args } = parseArgs({ options: {
  rows: { type: 'string', default: '100000' },
  seconds: { type: 'string', default: '5' },
  connections: { type: 'string', default: '20' },
  repeat: { type: 'string', default: '1' },
  only: { type: 'string' },
  profile: { type: 'boolean', default: false },
  baseline: { type: 'string' },
  instructions: { type: 'boolean', default: false },
  'round-trip': { type: 'boolean', default: false },
} })
const ROWS = Number(args.rows)
const SECONDS = Number(args.seconds)
const CONNECTIONS = Number(args.connections)
const REPEAT = Number(args.repeat)
// --- database, user, token, seed ---------------------------------------------------------------
const database = await benchDatabase()
const databaseUrl = database.url
const postmaster = pinnedPostmaster(database)
pinLoadGenerator()

/** CPU ticks of the embedded PostgreSQL's processes by pid (./harness.ts postgresTicks). */
const databaseTicks = (): Map<number, number> => postgresTicks(postmaster)
/** Ticks used since `before` (./harness.ts postgresTicksSince). */
const databaseTicksSince = (before: Map<number, number>): number => postgresTicksSince(postmaster, before)
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
const benchUser = await benchCaller(pool)
const { token } = benchUser
await seedOrders(pool, ROWS, benchUser.id)
const CARDS = 200
await seedCards(pool, CARDS)
await seedRelations(pool)

const env = { BENCH_DATABASE_URL: databaseUrl, BENCH_AUTH_SECRET: AUTH_SECRET, BENCH_OWNER: benchUser.id }
/**
 * --profile: a V8 CPU profile of each server, written when it exits (open it in Chrome's DevTools):
 * tablegate's in the working directory, another's (the floor's, limits off and on) in a folder of
 * its name there, so a side-by-side profile is one run.
 */
const profiled = (folder = ''): string[] => args.profile === true ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), folder)}`] : []
const tablegate = await startServer('tablegate.js', env, profiled())
const floor = await startServer('floor.js', env, profiled('floor'))
// The baseline beside a fresh server of this checkout, both started now and serving the same
// requests from here on: the long-lived server above served the set-up too, and a server's
// history moves its figures (see observabilityScenarios).
const baseline = args.baseline === undefined
  ? undefined
  : { before: await startServer(checkoutServer(args.baseline), env), after: await startServer('tablegate.js', env) }
const auth = { authorization: `Bearer ${token}` }
// The same tablegate, trusting another issuer's key: the bench user's token without a kid; and
// for the many-callers scenario, 10,000 distinct callers' tokens with a kid on one such process
// and without on another, so each process serves 10,000 callers, one token each, as a real one does.
const issuer = await benchIssuer()
const otherIssuerEnv = { ...env, BENCH_VERIFIER_JWK: JSON.stringify(issuer.jwk) }
const otherIssuer = await startServer('tablegate.js', otherIssuerEnv)
const callerServers = { kid: await startServer('tablegate.js', otherIssuerEnv), noKid: await startServer('tablegate.js', otherIssuerEnv) }
/** Each callers' process before any caller: the heap its callers grow. */
const callersAtStart = new Map([[callerServers.kid, await memoryOf(callerServers.kid)], [callerServers.noKid, await memoryOf(callerServers.noKid)]])
const noKidAuth = { authorization: `Bearer ${await issuer.sign(benchUser.id, { kid: false })}` }
const CALLERS = 10_000
const callerTokens = { kid: [] as string[], noKid: [] as string[] }
for (let i = 0; i < CALLERS; i++) {
  callerTokens.kid.push(`Bearer ${await issuer.sign(`caller-${i}`, { kid: true })}`)
  callerTokens.noKid.push(`Bearer ${await issuer.sign(`caller-${i}`, { kid: false })}`)
}

// --- scenario inputs: the token of page 1,000, and (id, etag) pairs for patches ------------------
async function getJson (path: string): Promise<any> {
  const response = await fetch(`http://127.0.0.1:${tablegate.port}${path}`, { headers: auth })
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
  return await response.json()
}
let page1000 = ''
for (let page = 1; page < 1000; page++) page1000 = (await getJson(`/api/v1/bench_orders?page_size=50&fields=id${page1000 === '' ? '' : `&page_token=${encodeURIComponent(page1000)}`}`)).next_page_token
// tablegate patches the first half of the rows with their etags, the floor the second half by
// version; each learns a row's next etag or version from its answer, so laps over the rows stay valid.
const half = Math.floor(ROWS / 2)
const etags: Array<[string, string]> = []
let cursor = ''
while (etags.length < half) {
  const body = await getJson(`/api/v1/bench_orders?page_size=500&fields=id${cursor === '' ? '' : `&page_token=${encodeURIComponent(cursor)}`}`)
  for (const item of body.items) if (etags.length < half) etags.push([item.id, item.etag])
  cursor = body.next_page_token
}
// Row n (ids run 1..ROWS in order) is etags[n - 1]: the If-Match: * scenario finds rows by id.
if (etags.some(([id], i) => id !== String(i + 1))) throw new Error('bench_orders ids are not 1..n in order')
const floorVersions = new Array<number>(ROWS - half).fill(1)

const tablegatePatches = patchRows(etags.length)
const floorPatches = patchRows(floorVersions.length)

/** `callers`: each request is one of 10,000 callers of the other issuer, on that server. */
interface Scenario { name: string, tablegate: Side, floor: Side, callers?: boolean }
const json = { 'content-type': 'application/json' }
const randomId = (): number => 1 + Math.floor(Math.random() * ROWS)
// Created orders belong to the caller, as the floor's do: rows the caller could not read would pile
// up in front of the list scenarios that follow.
const createBody = JSON.stringify({ title: 'new order', status: 'open', total: '9.99', owner_id: benchUser.id })
const scenarios: Scenario[] = [
  { name: 'get by key', tablegate: { method: 'GET', path: () => `/api/v1/bench_orders/${randomId()}` }, floor: { method: 'GET', path: () => `/orders/${randomId()}` } },
  { name: 'list page 50 by key', tablegate: { method: 'GET', path: () => '/api/v1/bench_orders?page_size=50' }, floor: { method: 'GET', path: () => '/orders' } },
  {
    name: 'list filter + sort',
    tablegate: { method: 'GET', path: () => `/api/v1/bench_orders?page_size=50&filter=${encodeURIComponent('status = open')}&order_by=${encodeURIComponent('placed_at desc')}` },
    floor: { method: 'GET', path: () => '/orders?status=open' },
  },
  {
    name: 'list, id > N per request',
    tablegate: { method: 'GET', path: () => `/api/v1/bench_orders?page_size=50&filter=${encodeURIComponent(`id > ${randomId()}`)}` },
    floor: { method: 'GET', path: () => `/orders?after=${randomId()}` },
  },
  { name: 'page 1,000 (keyset)', tablegate: { method: 'GET', path: () => `/api/v1/bench_orders?page_size=50&page_token=${encodeURIComponent(page1000)}` }, floor: { method: 'GET', path: () => '/orders?after=49950' } },
  { name: 'create', tablegate: { method: 'POST', path: () => '/api/v1/bench_orders', body: createBody, headers: () => json }, floor: { method: 'POST', path: () => '/orders', body: createBody, headers: () => json } },
  {
    name: 'patch with If-Match',
    tablegate: {
      method: 'PATCH',
      path: (c) => `/api/v1/bench_orders/${etags[tablegatePatches.pick(c)]![0]}`,
      body: JSON.stringify({ status: 'locked' }),
      headers: (c) => ({ ...json, 'if-match': etags[c.row!]![1] }),
      onResponse: (status, c, headers) => {
        if (status === 200) etags[c.row!]![1] = String(headers.etag)
        tablegatePatches.answered(c)
      },
    },
    floor: {
      method: 'PATCH',
      path: (c) => `/orders/${half + 1 + floorPatches.pick(c)}`,
      body: JSON.stringify({ status: 'locked' }),
      headers: (c) => ({ ...json, 'if-match': String(floorVersions[c.row!]) }),
      onResponse: (status, c) => {
        if (status === 200) floorVersions[c.row!]! += 1
        floorPatches.answered(c)
      },
    },
  },
  {
    // Each side patches its own half of the rows, as with If-Match, and its answers keep that
    // half's ETags (or versions) current: the scale-out section's If-Match patches run after this.
    // The floor patched tablegate's rows too, leaving their ETags stale: 6,600 of those patches failed.
    name: 'patch with If-Match: *',
    tablegate: {
      method: 'PATCH',
      path: (c) => `/api/v1/bench_orders/${c.id = 1 + Math.floor(Math.random() * half)}`,
      body: JSON.stringify({ status: 'open' }),
      headers: () => ({ ...json, 'if-match': '*' }),
      onResponse: (status, c, headers) => { if (status === 200) etags[c.id! - 1]![1] = String(headers.etag) },
    },
    floor: {
      method: 'PATCH',
      path: (c) => `/orders/${c.id = half + 1 + Math.floor(Math.random() * (ROWS - half))}`,
      body: JSON.stringify({ status: 'open' }),
      headers: () => ({ ...json, 'if-match': '*' }),
      onResponse: (status, c) => { if (status === 200) floorVersions[c.id! - half - 1]! += 1 },
    },
  },
  {
    // On `orders`, the same table with no row filter: every caller reads the same rows. Each
    // request is a caller the server may not have seen for a while: its token, its access plans.
    name: `list page 50, ${CALLERS.toLocaleString('en')} callers`,
    callers: true,
    tablegate: { method: 'GET', path: () => '/api/v1/orders?page_size=50' },
    floor: { method: 'GET', path: () => '/orders' },
  },
]


/** Runs `side` for a number of seconds, or for an amount of requests; at most `rate` requests a second when given. */
async function measure (server: BenchServer, side: Side, extraHeaders: Record<string, string>, length: number | { amount: number }, rate?: number): Promise<Measured> {
  const span = { ...(typeof length === 'number' ? { duration: length } : { amount: length.amount }), ...(rate === undefined ? {} : { overallRate: rate }) }
  const before = processTreeTicks(server.child.pid!)
  const databaseBefore = databaseTicks()
  const loadBefore = process.cpuUsage()
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    ...span,
    requests: [{
      method: side.method,
      setupRequest: (request, context) => ({ ...request, path: side.path(context as Context), headers: { ...extraHeaders, ...side.headers?.(context as Context) }, body: side.body }),
      ...(side.onResponse === undefined ? {} : { onResponse: (status: number, _body: string, context: object, headers?: Record<string, unknown>) => { side.onResponse!(status, context as Context, headers ?? {}) } }),
    }],
  })
  const ticks = processTreeTicks(server.child.pid!) - before
  const databaseUsed = databaseTicksSince(databaseBefore)
  const load = process.cpuUsage(loadBefore)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: result.requests.total === 0 ? 0 : (ticks * 10_000) / result.requests.total,
    databaseUs: result.requests.total === 0 ? 0 : (databaseUsed * 10_000) / result.requests.total,
    loadUs: result.requests.total === 0 ? 0 : (load.user + load.system) / result.requests.total,
    errors: result.errors + result.non2xx,
  }
}

/**
 * Batch writes, tablegate against itself: 100 creates as 100 requests beside one :batchWrite of
 * 100, in rows per second and server CPU per row; then a reorder of 200 cards on a unique index
 * (every card moves: the order reverses each time), one at a time.
 */
async function batchScenarios (): Promise<void> {
  const BATCH = 100
  const batchBody = JSON.stringify({ ops: Array.from({ length: BATCH }, (_, i) => ({ op: 'create', resource: 'bench_orders', data: { title: `batched ${i}`, status: 'open', total: '9.99', owner_id: benchUser.id } })) })
  const singles: Side = { method: 'POST', path: () => '/api/v1/bench_orders', body: createBody, headers: () => json }
  const batched: Side = { method: 'POST', path: () => '/api/v1:batchWrite', body: batchBody, headers: () => json }
  const runs: Array<{ singles: Measured, batched: Measured }> = []
  for (let r = 0; r < REPEAT; r++) {
    await measure(tablegate, singles, auth, 1)
    const one = await measure(tablegate, singles, auth, SECONDS)
    await measure(tablegate, batched, auth, 1)
    runs.push({ singles: one, batched: await measure(tablegate, batched, auth, SECONDS) })
  }
  const pick = (side: 'singles' | 'batched', key: keyof Measured): number => median(runs.map((r) => r[side][key]))
  const singleRows = pick('singles', 'rps')
  const batchRows = pick('batched', 'rps') * BATCH
  console.log(`\n${'batch writes'.padEnd(34)}${'rows/s'.padStart(9)}${'server µs/row'.padStart(15)}${'pg µs/row'.padStart(11)}${'err'.padStart(5)}`)
  console.log(`${'100 creates as 100 requests'.padEnd(34)}${singleRows.toFixed(0).padStart(9)}${pick('singles', 'cpuUs').toFixed(0).padStart(15)}${pick('singles', 'databaseUs').toFixed(0).padStart(11)}${String(pick('singles', 'errors')).padStart(5)}`)
  console.log(`${'100 creates as one :batchWrite'.padEnd(34)}${batchRows.toFixed(0).padStart(9)}${(pick('batched', 'cpuUs') / BATCH).toFixed(1).padStart(15)}${(pick('batched', 'databaseUs') / BATCH).toFixed(1).padStart(11)}${String(pick('batched', 'errors')).padStart(5)}`)
  console.log(`batch rows/s over single rows/s: ${(batchRows / singleRows).toFixed(1)}×`)

  // Reorders, one at a time: each reverses the cards, so all 200 change place.
  const cards: Array<{ id: number, etag: string }> = (await getJson(`/api/v1/bench_cards?order_by=position&page_size=${CARDS}`)).items
  const times: number[] = []
  for (let i = 0; i < 21; i++) {
    cards.reverse()
    const started = process.hrtime.bigint()
    const response = await fetch(`http://127.0.0.1:${tablegate.port}/api/v1:batchWrite`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ ops: [{ op: 'reorder', resource: 'bench_cards', field: 'position', keys: cards.map((c) => c.id), etags: Object.fromEntries(cards.map((c) => [String(c.id), c.etag])) }] }),
    })
    const body = await response.json() as { results: Array<{ records: Array<{ key: string, etag: string }> }> }
    if (!response.ok) throw new Error(`reorder answered ${response.status}: ${JSON.stringify(body)}`)
    if (i > 0) times.push(Number(process.hrtime.bigint() - started) / 1e6)
    body.results[0]!.records.forEach((record, j) => { cards[j]!.etag = record.etag })
  }
  times.sort((a, b) => a - b)
  console.log(`reorder of ${CARDS} cards on a unique index (all move), one at a time: p50 ${median(times).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms over ${times.length}`)
}

/**
 * What observability costs: the list page on tablegate as shipped (metrics on) beside the same
 * server without metrics and with metrics and Server-Timing, in requests per second and server
 * CPU per request. The servers take turns second by second (SECONDS × REPEAT rounds), so a drift
 * of the machine's speed falls on all three alike: runs of several seconds each disagreed by more
 * than the effect measured.
 */
async function observabilityScenarios (): Promise<void> {
  const servers = {
    'metrics off': await startServer('tablegate.js', { ...env, BENCH_OBSERVABILITY: 'off' }),
    // A fresh server like the other two, not the long-lived one that served every scenario above:
    // compared with its fresh peers it came out at 0.78 and 0.83 of "metrics off" in two full runs,
    // where fresh servers give 0.86-1.08 from run to run on this machine.
    'metrics on (default)': await startServer('tablegate.js', env),
    'metrics + Server-Timing': await startServer('tablegate.js', { ...env, BENCH_OBSERVABILITY: 'timing' }),
  }
  const list: Side = { method: 'GET', path: () => '/api/v1/bench_orders?page_size=50' }
  let runs: Map<string, Measured[]>
  try {
    for (const server of Object.values(servers)) await measure(server, list, auth, 1)
    runs = await takeTurns(Object.entries(servers).map(([name, server]) => [name, async () => await measure(server, list, auth, 1)] as const), SECONDS * REPEAT)
  } finally {
    await stopServers(Object.values(servers))
  }
  const mean = (xs: number[]): number => xs.reduce((sum, x) => sum + x, 0) / xs.length
  const base = runs.get('metrics off')!
  console.log(`\n${`list page 50, observability (${SECONDS * REPEAT} rounds of 1 s)`.padEnd(42)}${'req/s'.padStart(8)}${'vs off'.padStart(8)}${'CPU µs/req'.padStart(12)}${'vs off'.padStart(8)}`)
  for (const [name, measured] of runs) {
    const rps = mean(measured.map((m) => m.rps))
    const cpu = mean(measured.map((m) => m.cpuUs))
    console.log(`${name.padEnd(42)}${rps.toFixed(0).padStart(8)}${(rps / mean(base.map((m) => m.rps))).toFixed(3).padStart(8)}${cpu.toFixed(0).padStart(12)}${(cpu / mean(base.map((m) => m.cpuUs))).toFixed(3).padStart(8)}`)
  }
}

/**
 * Scale-out: one tablegate process straight to PostgreSQL beside two (node:cluster, one per core)
 * behind PgBouncer in transaction mode, the same scenarios, nothing pinned (PostgreSQL's new
 * backends may run on any core): throughput, p99, and the PostgreSQL connections each holds after
 * the scenario (the direct process's pools; PgBouncer's server connections for the two).
 */
async function scaleOutScenarios (): Promise<void> {
  const allCores = `0-${cpus().length - 1}`
  if (pinned && postmaster !== undefined) {
    execFileSync('taskset', ['-p', '-c', allCores, String(postmaster)], { stdio: 'ignore' })
    execFileSync('taskset', ['-a', '-p', '-c', allCores, String(process.pid)], { stdio: 'ignore' })
  }
  const database = new URL(databaseUrl).pathname.slice(1)
  const started = (await pool.query<{ now: Date }>('SELECT now()')).rows[0]!.now
  const direct = await startServer('tablegate.js', env, [], true)
  const poolers = await startPgBouncers(databaseUrl)
  const pooled = await startServer('tablegate.js', { ...env, BENCH_DATABASE_URL: poolers.url, DATABASE_POOLER: 'transaction', BENCH_WORKERS: '2' }, [], true)
  // Backends opened since the direct server started: its own, and PgBouncer's.
  const opened = async (): Promise<number> => (await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_start >= $1 AND application_name LIKE 'tablegate%'", [started])).rows[0]!.n
  try {
    console.log(`
${'scale-out (nothing pinned)'.padEnd(22)}${'1 direct r/s'.padStart(13)}${'p99'.padStart(8)}${'pg conns'.padStart(9)}${'2 pooled r/s'.padStart(14)}${'p99'.padStart(8)}${'pg conns'.padStart(9)}${'ratio'.padStart(7)}${'err'.padStart(5)}`)
    for (const scenario of scenarios) {
      const runs: Array<{ direct: Measured, pooled: Measured, directConnections: number, pooledConnections: number }> = []
      for (let r = 0; r < REPEAT; r++) {
        await measure(direct, scenario.tablegate, auth, 1)
        const one = await measure(direct, scenario.tablegate, auth, SECONDS)
        await measure(pooled, scenario.tablegate, auth, 1)
        const two = await measure(pooled, scenario.tablegate, auth, SECONDS)
        const pooledConnections = await poolers.serverConnections(database)
        runs.push({ direct: one, pooled: two, directConnections: await opened() - pooledConnections, pooledConnections })
      }
      const pick = (side: 'direct' | 'pooled', key: keyof Measured): number => median(runs.map((r) => r[side][key]))
      const connections = (key: 'directConnections' | 'pooledConnections'): number => Math.max(...runs.map((r) => r[key]))
      console.log(`${scenario.name.padEnd(30)}${pick('direct', 'rps').toFixed(0).padStart(13)}${`${pick('direct', 'p99')} ms`.padStart(8)}${String(connections('directConnections')).padStart(9)}` +
        `${pick('pooled', 'rps').toFixed(0).padStart(14)}${`${pick('pooled', 'p99')} ms`.padStart(8)}${String(connections('pooledConnections')).padStart(9)}` +
        `${(pick('pooled', 'rps') / pick('direct', 'rps')).toFixed(2).padStart(7)}${String(pick('direct', 'errors') + pick('pooled', 'errors')).padStart(5)}`)
    }
  } finally {
    await stopServers([direct, pooled])
    await poolers.stop()
    if (pinned && postmaster !== undefined) execFileSync('taskset', ['-p', '-c', '1', String(postmaster)], { stdio: 'ignore' })
    pinLoadGenerator()
  }
}

/**
 * Relations (docs/relations.md), issue 45's figures: on `rel_orders` (bench_orders read with its
 * relations: 10,000 customers in 250 countries, 5 lines an order), a page of 50 plain, with its
 * customer (to-one) or its 5 lines (to-many) embedded, and filtered across the customer: a
 * selective filter (one country, 0.4 % of orders) and an unselective one (countries up to one near
 * the middle, about half), each value drawn per request, as real traffic's differ. Each scenario
 * beside the floor's (./servers/floor.ts: two statements for the to-many, the cheapest form for
 * each filter), the two taking turns second by second for `--seconds` rounds (./harness.ts
 * takeTurns), on a fresh pair of servers for each `--repeat`; each pair's figures are its rounds'
 * means, and the table gives the pairs' medians: requests per second, tablegate's over the floor's
 * against issue 45's target and each pair's own ratio, p99, and server and PostgreSQL CPU per
 * request. The filters' match fractions are counted on the seeded data and printed. With
 * `--baseline`, both checkouts' servers take their turns, a row each. A scenario a server refuses is
 * printed with its answer, not measured. That each is one statement is proven by counting them in
 * test/http/relations-embed.test.ts and relations-filter.test.ts (the server's own statistics lag
 * by up to 10 s). `--profile` writes each fresh server's CPU profile (the floor's in `floor/`); `--only "relations: 5 lines"` runs
 * the scenarios whose name starts so.
 */
async function relationScenarios (): Promise<void> {
  // Fresh servers for each repeat, tablegate's and the floor's: a process keeps its start's luck
  // (code and heap placement, what the JIT made of its first requests) for its whole life, so one
  // pair of processes is one draw, however long it is measured. The baseline's servers are
  // started once, outside.
  const fresh = async (): Promise<{ servers: Array<[string, BenchServer]>, floor: BenchServer }> => baseline === undefined
    ? { servers: [['', await startServer('tablegate.js', env, profiled())]], floor: await startServer('floor.js', env, profiled('floor')) }
    : { servers: [['before', baseline.before], ['after', baseline.after]], floor }
  const stop = async (pair: { servers: Array<[string, BenchServer]>, floor: BenchServer }): Promise<void> => {
    if (baseline === undefined) await stopServers([...pair.servers.map(([, server]) => server), pair.floor])
  }
  const labels = baseline === undefined ? [''] : ['before', 'after']
  const fields = 'id,title,status,total,placed_at,customer_id'
  const list = `/api/v1/rel_orders?page_size=50&fields=${fields}`
  const filtered = (filter: string): string => `${list}&filter=${encodeURIComponent(filter)}`
  // Countries up to the one drawn from the 27 around the middle of the 250: 44.8-55.2 % of orders.
  const MIDDLE = Array.from({ length: 27 }, (_, i) => RELATION_COUNTRIES / 2 - 14 + i)
  const country = { selective: (): string => relationCountry(Math.floor(Math.random() * RELATION_COUNTRIES)), unselective: (): string => relationCountry(MIDDLE[Math.floor(Math.random() * MIDDLE.length)]!) }
  // Each with issue 45's target: tablegate's requests per second over the floor's.
  const questions: Array<{ name: string, target: number, tablegate: Side, floor: Side }> = [
    { name: 'plain page', target: 1, tablegate: { method: 'GET', path: () => list }, floor: { method: 'GET', path: () => '/rel_orders' } },
    { name: 'customer embedded (to-one)', target: 1, tablegate: { method: 'GET', path: () => `${list},customer` }, floor: { method: 'GET', path: () => '/rel_orders?embed=customer' } },
    { name: '5 lines embedded (to-many)', target: 0.8, tablegate: { method: 'GET', path: () => `${list},lines` }, floor: { method: 'GET', path: () => '/rel_orders?embed=lines' } },
    {
      name: 'filter customer.country = "<one of 250>"',
      target: 1,
      tablegate: { method: 'GET', path: () => filtered(`customer.country = "${country.selective()}"`) },
      floor: { method: 'GET', path: () => `/rel_orders?country=${country.selective()}` },
    },
    {
      name: `filter customer.country <= "<${relationCountry(MIDDLE[0]!)}..${relationCountry(MIDDLE.at(-1)!)}>"`,
      target: 1,
      tablegate: { method: 'GET', path: () => filtered(`customer.country <= "${country.unselective()}"`) },
      floor: { method: 'GET', path: () => `/rel_orders?country_upto=${country.unselective()}` },
    },
  ]
  // The fraction of orders each filter matches, by the database's own order of the codes.
  const orders = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bench_orders')).rows[0]!.n
  const byCountry = (await pool.query<{ country: string, n: number }>('SELECT c.country, count(*)::int AS n FROM bench_orders o JOIN bench_customers c ON c.id = o.customer_id GROUP BY c.country ORDER BY c.country')).rows
  let upTo = 0
  const fractions = byCountry.map(({ country: code, n }) => ({ code, equal: n / orders, upTo: (upTo += n) / orders }))
  const middle = new Set(MIDDLE.map(relationCountry))
  const span = (xs: number[]): string => `mean ${(100 * xs.reduce((sum, x) => sum + x, 0) / xs.length).toFixed(2)} %, ${(100 * Math.min(...xs)).toFixed(2)}-${(100 * Math.max(...xs)).toFixed(2)} %`
  const table: string[] = []
  // Each pair's ratio, in the order the pairs ran: runs of the same code pool these (a median over
  // more pairs), where one run's 9 cannot settle a target within 5 % of the floor.
  const pairLines: string[] = []
  // `--only "relations: 5 lines"`: the scenarios whose name starts so.
  const which = (args.only ?? '').replace(/^relations[\s:,]*/, '')
  const scenarios = questions.filter(({ name }) => name.startsWith(which))
  if (args.instructions === true) return await instructionScenarios({ env, auth, scenarios, warm: 6000, counted: 3000, measure })
  // Each scenario's runs by contender, and what a server answered instead of a page.
  const measured = scenarios.map(() => ({ runs: new Map<string, Measured[]>([...labels, 'floor'].map((label) => [label, []])), refused: new Map<string, string>() }))
  for (let r = 0; r < REPEAT; r++) {
    const pair = await fresh()
    try {
      const contendersOf = (i: number): Array<{ label: string, server: BenchServer, side: Side, auth: Record<string, string> }> => [
        ...pair.servers.filter(([label]) => !measured[i]!.refused.has(label)).map(([label, server]) => ({ label, server, side: scenarios[i]!.tablegate, auth })),
        { label: 'floor', server: pair.floor, side: scenarios[i]!.floor, auth: {} },
      ]
      for (const [i, scenario] of scenarios.entries()) {
        for (const [label, server] of pair.servers) {
          const response = await fetch(`http://127.0.0.1:${server.port}${scenario.tablegate.path({})}`, { headers: auth })
          if (!response.ok) measured[i]!.refused.set(label, `answers ${response.status}: ${((await response.json()) as { detail?: string }).detail ?? ''}`)
        }
        const contenders = contendersOf(i)
        // Fresh servers warm up on each scenario right before it is measured, as long as it is: a
        // new process grows its heap's young generation with its load over seconds, and a server
        // measured before that is measured at its start, not as it serves. Right before, not all
        // scenarios first: the filters' estimates, each kept 30 s, were then counted again all at
        // once while the filter was measured (the 250 values of the selective one: 257 count
        // statements of 3.4 ms in 10 s), where a steady stream of values renews them spread out:
        // about 8 counts a second for 250 values, under 2 % of that filter's PostgreSQL time.
        // A baseline's long-lived servers have served the scenarios before: a second each to settle.
        for (const contender of contenders) await measure(contender.server, contender.side, contender.auth, baseline === undefined ? SECONDS : 1)
        const rounds = await takeTurns(contenders.map(({ label, server, side, auth }) => [label, async () => await measure(server, side, auth, 1)] as const), SECONDS)
        for (const { label } of contenders) measured[i]!.runs.get(label)!.push(roundsMeasured(rounds.get(label)!))
      }
    } finally {
      await stop(pair)
    }
  }
  for (const [i, scenario] of scenarios.entries()) {
    const { runs, refused } = measured[i]!
    const of = (label: string, key: keyof Measured): number => median(runs.get(label)!.map((m) => m[key]))
    const pair = (label: string, key: keyof Measured, unit = ''): string => `${of(label, key).toFixed(0)}/${of('floor', key).toFixed(0)}${unit}`
    for (const label of labels) {
      const title = `${label === '' ? '' : `${label}: `}${scenario.name}`.padEnd(50)
      // Refused in any pair: its runs are not one for each of the floor's.
      if (refused.has(label)) {
        table.push(`${title}${'-'.padStart(8)}${of('floor', 'rps').toFixed(0).padStart(8)}${'-'.padStart(7)}${'-'.padStart(11)}${`≥ ${scenario.target.toFixed(1)}`.padStart(8)}  ${refused.get(label)!}`)
        continue
      }
      // Each run's own ratio (its servers' draw): the spread the median is taken over.
      const ratios = runs.get(label)!.map((m, r) => m.rps / runs.get('floor')![r]!.rps)
      pairLines.push(`${title}${ratios.map((ratio) => ratio.toFixed(3)).join(' ')}   median ${median(ratios).toFixed(3)}`)
      table.push(`${title}${of(label, 'rps').toFixed(0).padStart(8)}${of('floor', 'rps').toFixed(0).padStart(8)}${(of(label, 'rps') / of('floor', 'rps')).toFixed(2).padStart(7)}` +
        `${pairSpread(ratios).padStart(11)}${`≥ ${scenario.target.toFixed(1)}`.padStart(8)}${pair(label, 'p99', ' ms').padStart(13)}${pair(label, 'cpuUs').padStart(13)}${pair(label, 'databaseUs').padStart(14)}${pair(label, 'loadUs').padStart(14)}` +
        `${String(of(label, 'errors') + of('floor', 'errors')).padStart(5)}`)
    }
  }
  console.log(`\nrelations (rel_orders, page of 50; ${orders.toLocaleString('en')} orders; ${baseline === undefined ? `fresh servers for each of ${REPEAT} run(s)` : `${REPEAT} run(s)`}, medians): customer.country = "<one of 250>" matches ${span(fractions.map((f) => f.equal))} of orders; ` +
    `customer.country <= "<${relationCountry(MIDDLE[0]!)}..${relationCountry(MIDDLE.at(-1)!)}>" ${span(fractions.filter((f) => middle.has(f.code)).map((f) => f.upTo))}`)
  console.log(`${'scenario'.padEnd(50)}${'tg r/s'.padStart(8)}${'floor'.padStart(8)}${'ratio'.padStart(7)}${'runs'.padStart(11)}${'target'.padStart(8)}${'p99 tg/fl'.padStart(13)}${'CPU µs tg/fl'.padStart(13)}${'pg µs tg/fl'.padStart(14)}${'load µs tg/fl'.padStart(14)}${'err'.padStart(5)}`)
  for (const line of table) console.log(line)
  console.log('load µs: the load generator\'s CPU a request (this process), on the core PostgreSQL has: whichever of the two cores is full sets the throughput')
  console.log('each pair\'s tg / floor, in the order they ran, and their median')
  for (const line of pairLines) console.log(line)
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
const rows: string[] = []
/** Lines of the before → after table, when a baseline runs. */
const baselineRows: string[] = []
let peakRss = 0
interface Memory { rss: number, heap: { young: number, rest: number } }
/**
 * The resident memory of the process that served the 10,000 callers, right after them, and its V8
 * heap: the young generation, which V8 sizes from the machine's memory and the load, apart from the
 * rest. Beside it the floor's at the same moment: what V8 makes of a server that keeps nothing.
 */
let callersMemory: { callers: Memory, before: Memory, floor: Memory } | undefined
async function memoryOf (server: BenchServer): Promise<Memory> {
  return { rss: rssMb(server.child.pid!), heap: await heapMb(server) }
}
function memoryText ({ rss, heap }: Memory): string {
  return `${rss.toFixed(0)} MB (V8 heap: young generation ${heap.young.toFixed(0)} MB, the rest ${heap.rest.toFixed(0)} MB)`
}
/** The caller headers of a tablegate side: the bench user's token, or one of the 10,000 callers' in turn. */
function callerSide (side: Side, tokens: readonly string[]): Side {
  let next = 0
  return { ...side, headers: (c) => ({ ...side.headers?.(c), authorization: tokens[next++ % tokens.length]! }) }
}
try {
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; node ${process.version}; ${ROWS} rows; ${CONNECTIONS} connections; ${SECONDS} s per run; ${REPEAT} run(s), median; ${pinned ? 'servers on core 0, PostgreSQL and the load generator on core 1' : 'not pinned'}`)
  // Figures of a Node line tablegate does not support (package.json engines) describe no deployment.
  const supported = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node
  if (!(supported.match(/\^\d+/g) ?? []).some((line) => process.versions.node.split('.')[0] === line.slice(1))) {
    console.log(`warning: node ${process.version} is outside the supported lines (${supported}); run the benchmark on one of them`)
  }
  console.log('kid: tablegate\'s own login tokens; no kid: another issuer\'s tokens without kid, on a second tablegate process (its patches use ETags the first process gave); many callers: another issuer\'s tokens with and without kid, each kind on a fresh process of its own, after one request per caller')
  const header = `${'scenario'.padEnd(30)}${'floor r/s'.padStart(10)}${'kid r/s'.padStart(9)}${'ratio'.padStart(7)}${'no-kid r/s'.padStart(11)}${'ratio'.padStart(7)}${'p99 floor/kid/no-kid'.padStart(22)}${'CPU µs floor/kid/no-kid'.padStart(25)}${'pg µs floor/kid/no-kid'.padStart(24)}${'err'.padStart(5)}`
  console.log(header)
  for (const scenario of scenarios.filter((s) => args.only === undefined || s.name.startsWith(args.only))) {
    const sides = scenario.callers === true
      ? { kid: { server: callerServers.kid, side: callerSide(scenario.tablegate, callerTokens.kid), auth: {} }, noKid: { server: callerServers.noKid, side: callerSide(scenario.tablegate, callerTokens.noKid), auth: {} } }
      : { kid: { server: tablegate, side: scenario.tablegate, auth }, noKid: { server: otherIssuer, side: scenario.tablegate, auth: noKidAuth } }
    const runs: Array<Record<'floor' | 'kid' | 'noKid', Measured> & { before?: Measured, after?: Measured }> = []
    // Many callers warm up with one request each: the steady state of callers the server has
    // seen but not lately. A caller's first request (a verification and a plan) is once per token.
    const warmUp = scenario.callers === true ? { amount: CALLERS } : 1
    for (let r = 0; r < REPEAT; r++) {
      await measure(floor, scenario.floor, {}, 1)
      const f = await measure(floor, scenario.floor, {}, SECONDS)
      await measure(sides.kid.server, sides.kid.side, sides.kid.auth, warmUp)
      const k = await measure(sides.kid.server, sides.kid.side, sides.kid.auth, SECONDS)
      peakRss = Math.max(peakRss, rssMb(sides.kid.server.child.pid!))
      await measure(sides.noKid.server, sides.noKid.side, sides.noKid.auth, warmUp)
      const n = await measure(sides.noKid.server, sides.noKid.side, sides.noKid.auth, SECONDS)
      peakRss = Math.max(peakRss, rssMb(sides.noKid.server.child.pid!))
      if (scenario.callers === true) {
        for (const { server } of [sides.kid, sides.noKid]) {
          const memory = await memoryOf(server)
          if (memory.rss > (callersMemory?.callers.rss ?? 0)) callersMemory = { callers: memory, before: callersAtStart.get(server)!, floor: await memoryOf(floor) }
        }
      }
      // The other checkout and this one, fresh, with the kid column's token and scenario.
      let compared: { before: Measured, after: Measured } | undefined
      if (baseline !== undefined && scenario.callers !== true) {
        await measure(baseline.before, scenario.tablegate, auth, 1)
        const before = await measure(baseline.before, scenario.tablegate, auth, SECONDS)
        await measure(baseline.after, scenario.tablegate, auth, 1)
        compared = { before, after: await measure(baseline.after, scenario.tablegate, auth, SECONDS) }
      }
      runs.push({ floor: f, kid: k, noKid: n, ...(compared === undefined ? {} : compared) })
    }
    const pick = (side: 'floor' | 'kid' | 'noKid', key: keyof Measured): number => median(runs.map((r) => r[side][key]))
    const three = (key: keyof Measured, unit = ''): string => `${pick('floor', key).toFixed(0)}/${pick('kid', key).toFixed(0)}/${pick('noKid', key).toFixed(0)}${unit}`
    const line = `${scenario.name.padEnd(30)}${pick('floor', 'rps').toFixed(0).padStart(10)}` +
      `${pick('kid', 'rps').toFixed(0).padStart(9)}${(pick('kid', 'rps') / pick('floor', 'rps')).toFixed(2).padStart(7)}` +
      `${pick('noKid', 'rps').toFixed(0).padStart(11)}${(pick('noKid', 'rps') / pick('floor', 'rps')).toFixed(2).padStart(7)}` +
      `${three('p99', ' ms').padStart(22)}${three('cpuUs').padStart(25)}${three('databaseUs').padStart(24)}${String(pick('floor', 'errors') + pick('kid', 'errors') + pick('noKid', 'errors')).padStart(5)}`
    rows.push(line)
    console.log(line)
    if (runs[0]!.before !== undefined) {
      const of = (side: 'before' | 'after', key: keyof Measured): number => median(runs.map((r) => r[side]![key]))
      baselineRows.push(`${scenario.name.padEnd(30)}${of('before', 'rps').toFixed(0).padStart(11)}${of('after', 'rps').toFixed(0).padStart(10)}${(of('after', 'rps') / of('before', 'rps')).toFixed(2).padStart(7)}` +
        `${`${of('before', 'p99')}/${of('after', 'p99')} ms`.padStart(17)}${`${of('before', 'cpuUs').toFixed(0)}/${of('after', 'cpuUs').toFixed(0)}`.padStart(17)}` +
        `${`${of('before', 'databaseUs').toFixed(0)}/${of('after', 'databaseUs').toFixed(0)}`.padStart(16)}${String(of('before', 'errors') + of('after', 'errors')).padStart(5)}`)
    }
  }
  console.log(`tablegate resident memory under load (largest of its two processes): ${peakRss.toFixed(0)} MB` +
    (callersMemory === undefined
      ? ''
      : `; the process of the ${CALLERS.toLocaleString('en')} callers, after them: ${memoryText(callersMemory.callers)}, the rest of its heap ` +
        `${callersMemory.before.heap.rest.toFixed(0)} MB before them; the floor then: ${memoryText(callersMemory.floor)}`))
  if (baselineRows.length > 0) {
    console.log(`\nbefore → after: ${resolve(args.baseline!)} → this checkout, each on a fresh server started together (kid tokens, the same scenarios, measured in turn)`)
    console.log(`${'scenario'.padEnd(30)}${'before r/s'.padStart(11)}${'after r/s'.padStart(10)}${'ratio'.padStart(7)}${'p99 before/after'.padStart(17)}${'CPU µs bef/aft'.padStart(17)}${'pg µs bef/aft'.padStart(16)}${'err'.padStart(5)}`)
    for (const line of baselineRows) console.log(line)
  }
  if (args.only === undefined || args.only.startsWith('relations')) await relationScenarios()
  if (args.only === undefined || args.only.startsWith('warmup')) {
    const shape = (args.only ?? '').replace(/^warmup[\s:,]*/, '')
    await warmupScenarios({ postmaster, env, auth, rounds: Math.max(3, REPEAT), requests: 100, only: shape === '' ? undefined : shape, baseline: args.baseline, roundTrip: args['round-trip'] })
  }
  if (args.only === undefined || args.only.startsWith('batch')) await batchScenarios()
  if (args.only === undefined || args.only.startsWith('observability')) await observabilityScenarios()
  if (args.only === undefined || args.only.startsWith('limits')) {
    await limitScenarios({ env, auth, pool, measure, profiled, only: args.only, seconds: SECONDS, repeat: REPEAT, connections: CONNECTIONS, sides: {
      'get by key': scenarios[0]!.tablegate,
      'list page 50 by key': scenarios[1]!.tablegate,
      create: scenarios.find((s) => s.name === 'create')!.tablegate,
    } })
  }
  if (args.only === undefined || args.only.startsWith('scale')) await scaleOutScenarios()
  if (args.only === undefined || args.only.startsWith('changes')) await changeScenarios({ ...CHANGE_DEFAULTS, seconds: SECONDS, repeat: REPEAT, connections: CONNECTIONS, only: args.only, profile: args.profile })
} finally {
  await stopServers([tablegate, otherIssuer, callerServers.kid, callerServers.noKid, floor, ...(baseline === undefined ? [] : [baseline.before, baseline.after])])
  await pool.end()
  await database.stop()
}
