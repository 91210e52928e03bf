// The warm-up tax (issue 45, item 3): what the 1st, 2nd, … 100th request of a list shape new to
// the server cost, in server and PostgreSQL CPU, one request at a time. `npm run bench -- --only
// warmup` (`--only "warmup: customer"`: the shapes whose name starts so), or alone:
// `npm run build && node dist/benchmarks/warmup.js [--rounds 3 --requests 100 --only plain]`.
// Each shape is measured on a fresh server of its own (benchmarks/servers/tablegate.ts, pinned to
// core 0), first warmed up on other shapes of the same tables, so its JIT, its pool's connections
// and their catalog caches are warm and only what is new about the shape is left: its scan guard
// verdict, its estimate, its statements' preparation, its field selection. The shapes run with the
// scan guard as shipped and again with it off: what is left then is the rest of the tax. A
// request's CPU is read from /proc/<pid>/task/*/schedstat (nanoseconds, ./harness.ts cpuNanos)
// twice: when its answer arrives (work the server starts right after answering, in the background,
// may fall in it too), and SETTLE_MS later, which adds all it did for the request afterwards.
// A shape's first request on a server that has run the warm-up only also pays for code paths the
// process runs for the first time (V8 compiles a function on its first call); a second part takes
// families of 64 shapes, serves the first 8 of a family 6 times each, then measures each of the
// other 56 six times: what one more new shape costs a process already serving new shapes
// (`--only new`: that part alone; the families' names start with `new`). `--baseline DIR` (a
// built checkout): each family also on that checkout's server, shape by shape beside this one's.
// `--round-trip`: the families also on a server whose only list guard sends `SELECT 1`: what one
// round trip costs a request on a server that waits between requests.
// Printed, not asserted: the machine is shared, so figures are indicative.
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { RELATION_COUNTRIES, relationCountry, seedCards, seedOrders, seedRelations } from './bench-orders.js'
import { AUTH_SECRET, benchCaller, checkoutServer, cpuNanos, pinLoadGenerator, pinnedPostmaster, postgresNanos, startServer, stopServers, type BenchServer } from './harness.js'

export interface WarmupOptions {
  /** The embedded PostgreSQL's postmaster: its backends' CPU counts; undefined for a given database (server CPU only). */
  readonly postmaster: number | undefined
  /** The bench servers' environment (./run.ts `env`). */
  readonly env: Record<string, string>
  /** The bench caller's headers. */
  readonly auth: Record<string, string>
  readonly rounds: number
  readonly requests: number
  readonly only?: string | undefined
  /** Another checkout, built: its server beside this one's in the families part, shape by shape (`before`, `after`). */
  readonly baseline?: string | undefined
  /** The families also with the guard off and one `SELECT 1` before every list: what a round trip costs. */
  readonly roundTrip?: boolean | undefined
}

/** What a request's CPU is read this long after its answer too: work the server left for after it. */
const SETTLE_MS = 25

const FIELDS = 'id,title,status,total,placed_at,customer_id'
const LIST = `/api/v1/rel_orders?page_size=50&fields=${FIELDS}`
const filtered = (filter: string): string => `${LIST}&filter=${encodeURIComponent(filter)}`

/** A shape measured: the path of its i-th request (0-based), the same each time or with a new filter value. */
interface Shape { readonly name: string, readonly path: (i: number) => string }

/**
 * The fresh server's warm-up: the code paths every measured shape takes (guards, estimates,
 * embeds, traversal, row filters), on the same tables, in shapes none of them has.
 */
const WARM_UP: readonly Shape[] = [
  { name: 'customers by country', path: (i) => `/api/v1/bench_customers?page_size=50&filter=${encodeURIComponent(`country = "${relationCountry(i % RELATION_COUNTRIES)}"`)}` },
  { name: 'customers by name', path: () => '/api/v1/bench_customers?page_size=50&order_by=name' },
  { name: 'lines', path: (i) => `/api/v1/bench_order_lines?page_size=50&filter=${encodeURIComponent(`order_id = ${i}`)}` },
  { name: 'orders by title, embedded', path: () => '/api/v1/rel_orders?page_size=50&order_by=title&fields=id,title,customer,lines' },
  { name: 'orders by customer name', path: (i) => `/api/v1/rel_orders?page_size=50&order_by=title&fields=id,title&filter=${encodeURIComponent(`customer.name = "Customer ${i}"`)}` },
  { name: 'own orders by title', path: (i) => `/api/v1/bench_orders?page_size=50&filter=${encodeURIComponent(`title = "Order ${i}"`)}` },
  { name: 'orders by key', path: (i) => `/api/v1/orders?page_size=20&filter=${encodeURIComponent(`id > ${i}`)}` },
]
const SHAPES: readonly Shape[] = [
  { name: 'plain', path: () => LIST },
  { name: 'order_by customer_id', path: () => `${LIST}&order_by=customer_id` },
  { name: 'status = "open", same value', path: () => filtered('status = "open"') },
  { name: 'status = "open" by placed_at desc', path: () => `${filtered('status = "open"')}&order_by=${encodeURIComponent('placed_at desc')}` },
  { name: 'customer_id = N, new N each', path: (i) => filtered(`customer_id = ${1 + (i * 37) % 10_000}`) },
  { name: 'customer.country, same value', path: () => filtered('customer.country = "AB"') },
  { name: 'customer.country, new value each', path: (i) => filtered(`customer.country = "${relationCountry((i * 7) % RELATION_COUNTRIES)}"`) },
  { name: 'customer embedded', path: () => `${LIST},customer` },
  { name: 'lines embedded', path: () => `${LIST},lines` },
  { name: 'row filter (own rows), plain', path: () => '/api/v1/bench_orders?page_size=50' },
  // Not new: one the warm-up served. What its first request costs over its last is the harness's own.
  { name: 'control: a shape already served', path: WARM_UP[1]!.path },
]

const WARM_UP_REQUESTS = 150

/** 64 shapes of one kind, each new to the scan guard and the estimate, or to the record writers only. */
interface Family { readonly name: string, readonly paths: readonly string[] }

const ORDER_FIELDS = FIELDS.split(',')
// 32 filters, each in two orders: each keeps the list on the key's index (`id > 99000`: 1,000
// rows, which the estimate's count reaches), so the guard refuses none.
const CONDITIONS = ['status = "open"', 'total > 1', 'title != "x"', 'placed_at > "2000-01-01T00:00:00Z"', 'customer_id != 0']
const structures = ['', `&order_by=${encodeURIComponent('id desc')}`].flatMap((order) => Array.from({ length: 32 }, (_, m) =>
  encodeURIComponent(['id > 99000', ...CONDITIONS.filter((_, i) => (m & (1 << i)) !== 0)].join(' AND ')) + order))
// 64 filters on customers' names (10,000 rows, no index on the name): each is read whole, which
// the guard allows at that size once it has measured the table (the family "new small-table filter").
const NAME_OPERATORS = ['=', '!=', '>', '<', '>=', '<=']
const nameFilters = [
  ...NAME_OPERATORS.map((op) => `name ${op} "Customer 5"`),
  ...NAME_OPERATORS.flatMap((a) => NAME_OPERATORS.flatMap((b) => ['AND', 'OR'].map((join) => `name ${a} "Customer 5" ${join} name ${b} "Customer 7"`))),
].slice(0, 64)
const FAMILIES: readonly Family[] = [
  // A new `fields` selection (all fields, then each of the 63 subsets): a new statement text and
  // record writer, the same guard verdict and estimate.
  { name: 'new fields selection', paths: Array.from({ length: 64 }, (_, m) => `/api/v1/rel_orders?page_size=50${m === 0 ? '' : `&fields=${ORDER_FIELDS.filter((_, i) => (m & (1 << i)) !== 0).join(',')}`}`) },
  { name: 'new filter and order', paths: structures.map((filter) => `${LIST}&filter=${filter}`) },
  { name: 'new filter and order, customer', paths: structures.map((filter) => `${LIST},customer&filter=${filter}`) },
  { name: 'new small-table filter', paths: nameFilters.map((filter) => `/api/v1/bench_customers?page_size=50&filter=${encodeURIComponent(filter)}`) },
]
/** A family's shapes served before any is measured, and how often each shape is asked. */
const FAMILY_UNMEASURED = 8
const FAMILY_REQUESTS = 6
/** The families' first column: the longest name, with `, before` or `, after`. */
const FAMILY_NAME_WIDTH = 40

/** A request's CPU in µs: the server's and PostgreSQL's, at its answer and once settled. */
interface Cost { readonly server: number, readonly pg: number, readonly settledServer: number, readonly settledPg: number }

async function get (server: BenchServer, path: string, auth: Record<string, string>): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: auth })
  const body = await response.text()
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${body}`)
}

/** One request's cost, read at its answer and again SETTLE_MS later. */
async function costOf (server: BenchServer, path: string, options: WarmupOptions): Promise<Cost> {
  const pid = server.child.pid!
  const server0 = cpuNanos(pid)
  const pg0 = postgresNanos(options.postmaster)
  await get(server, path, options.auth)
  const server1 = cpuNanos(pid)
  const pg1 = postgresNanos(options.postmaster)
  await sleep(SETTLE_MS)
  return { server: (server1 - server0) / 1000, pg: (pg1 - pg0) / 1000, settledServer: (cpuNanos(pid) - server0) / 1000, settledPg: (postgresNanos(options.postmaster) - pg0) / 1000 }
}

/** The shape's requests on a fresh, warmed server (`env` added to the bench's): each one's server and PostgreSQL CPU in µs. */
async function measureShape (shape: Shape, options: WarmupOptions, env: Record<string, string>): Promise<Cost[]> {
  const server = await startServer('tablegate.js', { ...options.env, ...env })
  try {
    for (let i = 0; i < WARM_UP_REQUESTS; i++) for (const warm of WARM_UP) await get(server, warm.path(i), options.auth)
    await sleep(100)
    const costs: Cost[] = []
    for (let i = 0; i < options.requests; i++) costs.push(await costOf(server, shape.path(i), options))
    return costs
  } finally {
    await stopServers([server])
  }
}

/** The checkouts the families run on: this one, and with `--baseline` the other one first (`before`, `after`). */
function checkouts (options: WarmupOptions): Array<readonly [string, string]> {
  if (options.baseline === undefined) return [['', 'tablegate.js']]
  return [['before', checkoutServer(options.baseline)], ['after', 'tablegate.js']]
}

/**
 * A family's measured shapes on a fresh server of each checkout: for each checkout and each of its
 * n-th requests, every shape's cost. With two, each shape is served by both in turn, the first
 * by turns, so a drift of the machine's speed falls on both alike.
 */
async function measureFamily (family: Family, options: WarmupOptions, env: Record<string, string>): Promise<Cost[][][]> {
  const servers: BenchServer[] = []
  try {
    for (const [, file] of checkouts(options)) servers.push(await startServer(file, { ...options.env, ...env }))
    const byServer: Cost[][][] = servers.map(() => Array.from({ length: FAMILY_REQUESTS }, () => []))
    for (const [s, path] of family.paths.entries()) {
      const order = s % 2 === 0 ? [...servers.keys()] : [...servers.keys()].reverse()
      for (const k of order) {
        for (let n = 0; n < FAMILY_REQUESTS; n++) {
          const cost = await costOf(servers[k]!, path, options)
          if (s >= FAMILY_UNMEASURED) byServer[k]![n]!.push(cost)
        }
      }
    }
    return byServer
  } finally {
    await stopServers(servers)
  }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!

type Variant = readonly [string, Record<string, string>]
/** The servers the shapes run on: as shipped, and with the scan guard off (./servers/tablegate.ts BENCH_SCAN_GUARD). */
const VARIANTS: readonly Variant[] = [['scan guard on (as shipped)', {}], ['scan guard off', { BENCH_SCAN_GUARD: 'off' }]]
/**
 * `--round-trip`: the scan guard off, and a guard that only sends `SELECT 1` before every list
 * (./servers/tablegate.ts BENCH_ROUND_TRIP), on every request of a shape, not only its first:
 * what one round trip adds.
 */
const ROUND_TRIP: Variant = ['guard off, SELECT 1 before every list', { BENCH_SCAN_GUARD: 'off', BENCH_ROUND_TRIP: '1' }]

export async function warmupScenarios (options: WarmupOptions): Promise<void> {
  const shapes = SHAPES.filter((shape) => options.only === undefined || shape.name.startsWith(options.only))
  const runs = new Map<string, Cost[][]>()
  // Rounds interleave the shapes and servers, so a drift of the machine's speed falls on all alike.
  for (let round = 0; round < options.rounds; round++) {
    for (const [variant, env] of VARIANTS) {
      for (const shape of shapes) {
        const key = `${variant}\0${shape.name}`
        runs.set(key, [...(runs.get(key) ?? []), await measureShape(shape, options, env)])
      }
    }
  }
  if (shapes.length > 0) printShapes(shapes, runs, options)
  await familyScenarios(options)
}

function printShapes (shapes: readonly Shape[], runs: ReadonlyMap<string, Cost[][]>, options: WarmupOptions): void {
  const last = Math.min(10, options.requests)
  const columns = [1, 2, 3, 5, 10].filter((n) => n <= options.requests)
  console.log(`\nwarm-up tax: server + PostgreSQL CPU µs of the n-th request of a list shape new to a warmed server, median of ${options.rounds} fresh servers;`)
  console.log(`"last": requests ${options.requests - last + 1}-${options.requests}; "+background": read ${SETTLE_MS} ms after the answer${options.postmaster === undefined ? '; PostgreSQL not measured (a given database)' : ''}`)
  for (const [variant] of VARIANTS) {
    console.log(`${variant.padEnd(34)}${columns.map((n) => `#${n}`.padStart(7)).join('')}${'last'.padStart(7)}${'#1/last'.padStart(9)}${'server #1/last'.padStart(16)}${'pg #1/last'.padStart(12)}${'+background #1/last'.padStart(21)}`)
    for (const shape of shapes) {
      const measured = runs.get(`${variant}\0${shape.name}`)!
      const at = (n: number, of: (cost: Cost) => number): number => median(measured.map((costs) => of(costs[n - 1]!)))
      const tail = (of: (cost: Cost) => number): number => median(measured.flatMap((costs) => costs.slice(-last).map(of)))
      const total = (cost: Cost): number => cost.server + cost.pg
      const settled = (cost: Cost): number => cost.settledServer + cost.settledPg
      const pair = (of: (cost: Cost) => number): string => `${at(1, of).toFixed(0)}/${tail(of).toFixed(0)}`
      console.log(`${shape.name.padEnd(34)}${columns.map((n) => at(n, total).toFixed(0).padStart(7)).join('')}${tail(total).toFixed(0).padStart(7)}` +
        `${(at(1, total) / tail(total)).toFixed(2).padStart(9)}${pair((c) => c.server).padStart(16)}${pair((c) => c.pg).padStart(12)}` +
        `${`${pair(settled)} ${(at(1, settled) / tail(settled)).toFixed(2)}`.padStart(21)}`)
    }
  }
}

/** The families' shapes, each new to a server serving new shapes of its family. */
async function familyScenarios (options: WarmupOptions): Promise<void> {
  const families = FAMILIES.filter((family) => options.only === undefined || family.name.startsWith(options.only))
  if (families.length === 0) return
  const measuredFamilies = new Map<string, Cost[][]>()
  const sides = checkouts(options).map(([side]) => side)
  const variants = options.roundTrip === true ? [...VARIANTS, ROUND_TRIP] : VARIANTS
  for (let round = 0; round < options.rounds; round++) {
    for (const [variant, env] of variants) {
      for (const family of families) {
        const measured = await measureFamily(family, options, env)
        for (const [k, side] of sides.entries()) {
          const key = `${variant}\0${family.name}\0${side}`
          measuredFamilies.set(key, measured[k]!.map((costs, n) => [...(measuredFamilies.get(key)?.[n] ?? []), ...costs]))
        }
      }
    }
  }
  const measuredShapes = (FAMILIES[0]!.paths.length - FAMILY_UNMEASURED) * options.rounds
  console.log(`\none more new shape: the n-th request of each of ${measuredShapes} shapes, each new to a server serving new shapes of its family (${FAMILY_UNMEASURED} served first, ${options.rounds} fresh servers${sides.length > 1 ? ' of each checkout, before and after taking each shape in turn' : ''}), medians;`)
  console.log(`server + PostgreSQL CPU µs, read ${SETTLE_MS} ms after the answer (background work included)`)
  const requests = Array.from({ length: FAMILY_REQUESTS }, (_, n) => n + 1)
  for (const [variant] of variants) {
    console.log(`${variant.padEnd(FAMILY_NAME_WIDTH)}${requests.map((n) => `#${n}`.padStart(7)).join('')}${`#1/#${FAMILY_REQUESTS}`.padStart(9)}${`server #1/#${FAMILY_REQUESTS}`.padStart(16)}${`pg #1/#${FAMILY_REQUESTS}`.padStart(12)}`)
    for (const family of families) {
      for (const side of sides) {
        const measured = measuredFamilies.get(`${variant}\0${family.name}\0${side}`)!
        const at = (n: number, of: (cost: Cost) => number): number => median(measured[n - 1]!.map(of))
        const settled = (cost: Cost): number => cost.settledServer + cost.settledPg
        const pair = (of: (cost: Cost) => number): string => `${at(1, of).toFixed(0)}/${at(FAMILY_REQUESTS, of).toFixed(0)}`
        const name = side === '' ? family.name : `${family.name}, ${side}`
        console.log(`${name.padEnd(FAMILY_NAME_WIDTH)}${requests.map((n) => at(n, settled).toFixed(0).padStart(7)).join('')}${(at(1, settled) / at(FAMILY_REQUESTS, settled)).toFixed(2).padStart(9)}` +
          `${pair((c) => c.settledServer).padStart(16)}${pair((c) => c.settledPg).padStart(12)}`)
      }
    }
  }
}

// Run alone, on an embedded PostgreSQL seeded as ./run.ts seeds it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values: args } = parseArgs({ options: {
    rows: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '100' },
    only: { type: 'string' },
    baseline: { type: 'string' },
    'round-trip': { type: 'boolean', default: false },
  } })
  const database = await benchDatabase()
  const postmaster = pinnedPostmaster(database)
  pinLoadGenerator()
  const pool = new pg.Pool({ connectionString: database.url, max: 2 })
  try {
    const caller = await benchCaller(pool)
    await seedOrders(pool, Number(args.rows), caller.id)
    await seedCards(pool, 200)
    await seedRelations(pool)
    const env = { BENCH_DATABASE_URL: database.url, BENCH_AUTH_SECRET: AUTH_SECRET, BENCH_OWNER: caller.id }
    await warmupScenarios({ postmaster, env, auth: { authorization: `Bearer ${caller.token}` }, rounds: Number(args.rounds), requests: Number(args.requests), only: args.only, baseline: args.baseline, roundTrip: args['round-trip'] })
  } finally {
    await pool.end()
    await database.stop()
  }
}
