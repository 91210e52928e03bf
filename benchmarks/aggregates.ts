// `npm run bench:aggregates [-- --rows N --runs N]`: :facets, :series, :histogram and :seek on a
// large table through HTTP inject (a real token, the whole request path), each beside the plain
// SQL it compiles to, run on its own connection with the same values. For :seek, also what an
// index-only anchor (a keyset jump) would do in place of OFFSET over the whole rows.
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import Fastify from 'fastify'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import { runtimeOf } from '../lib/runtime.js'
import { compile, type Sql } from '../lib/sql/sql.js'
import { compileList } from '../lib/sql/read.js'
import { compileFacets, compileHistogram, compileSeries } from '../lib/sql/aggregates.js'
import { planFacets, planHistogram, planSeries, type Granularity, type SeriesPlan } from '../lib/plan/aggregates.js'
import { planSeek } from '../lib/plan/seek.js'
import { MAX_FILTER_QUERY } from '../lib/plan/filter.js'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '20' } } })
const rows = Number(values.rows)
const runs = Number(values.runs)

function median (times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function time (n: number, work: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(3, n); i++) await work()
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint()
    await work()
    out.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return median(out)
}

async function timeBoth (n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []]
  for (let i = 0; i < n + 3; i++) {
    for (const [side, work] of [a, b].entries()) {
      const start = process.hrtime.bigint()
      await work()
      if (i >= 3) times[side]!.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  return [median(times[0]), median(times[1])]
}

const database = await benchDatabase()
const db = new pg.Client({ connectionString: database.url })
await db.connect()
// Two years of sales, one a minute back from now: five statuses, amounts in cents, three regions.
await db.query(`DROP TABLE IF EXISTS bench_sales;
  CREATE TABLE bench_sales (id bigserial PRIMARY KEY, status text NOT NULL, region text NOT NULL, amount numeric(12, 2), placed_at timestamptz NOT NULL)`)
await db.query(`INSERT INTO bench_sales (status, region, amount, placed_at)
  SELECT (ARRAY['new', 'paid', 'shipped', 'returned', 'cancelled'])[1 + (n * 7) % 5], (ARRAY['eu', 'us', 'ap'])[1 + n % 3],
    CASE WHEN n % 50 = 0 THEN NULL ELSE ((n::int8 * 7919) % 100000) / 100.0 END, now() - n * interval '1 minute'
  FROM generate_series(1, $1::int) AS n`, [rows])
await db.query('CREATE INDEX bench_sales_status ON bench_sales (status)')
await db.query('CREATE INDEX bench_sales_region_status ON bench_sales (region, status)')
await db.query('CREATE INDEX bench_sales_placed ON bench_sales (placed_at, id)')
await db.query('VACUUM ANALYZE bench_sales')

const app = await createServer({
  databaseUrl: database.url,
  authSecret: 'bench-secret-0123456789abcdef',
  resources: {
    bench_sales: {
      fields: {
        id: { type: 'bigint', readOnly: true },
        status: { type: 'string' },
        region: { type: 'string' },
        amount: { type: 'decimal' },
        placed_at: { type: 'timestamp' },
      },
    },
  },
})
try {
  await app.tablegate.users!.create({ email: 'bench@example.com', password: 'correct-horse-battery' })
  const { token } = await app.tablegate.users!.issueToken('bench@example.com', { ttlSeconds: 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const get = async (url: string): Promise<void> => {
    const response = await app.inject({ method: 'GET', url, headers })
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`)
  }
  const runtime = runtimeOf(app)
  const [user] = await app.tablegate.users!.list()
  const access = runtime.access.plan({ user: { id: user!.id, roles: ['admin'] } }, user!.id, 'bench_sales')!
  const plain = async (statement: Sql): Promise<void> => {
    const { text, values: bound } = compile(statement)
    await db.query(text, bound)
  }
  const query = (text: string): Record<string, string> => Object.fromEntries(new URLSearchParams(text))

  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, shared with other work; ${rows} rows; median of ${runs} sequential requests (ms)`)
  console.log('case                                              tablegate   plain SQL   ratio')
  // Alternating, request by request, so load from elsewhere on the machine falls on both sides alike.
  const row = async (label: string, url: string, statement: Sql): Promise<void> => {
    const [served, direct] = await timeBoth(runs, async () => await get(url), async () => await plain(statement))
    console.log(`${label.padEnd(48)} ${served.toFixed(2).padStart(10)} ${direct.toFixed(2).padStart(11)} ${(served / direct).toFixed(2).padStart(7)}`)
  }

  const facets = 'field=status'
  await row('facets status (indexed, 5 values)', `/api/v1/bench_sales:facets?${facets}`, compileFacets(planFacets(query(facets), access, runtime.services, () => access)))
  const filteredFacets = `field=status&filter=${encodeURIComponent('region = eu')}`
  await row('facets status, filter region = eu', `/api/v1/bench_sales:facets?${filteredFacets}`, compileFacets(planFacets(query(filteredFacets), access, runtime.services, () => access)))
  const series = 'field=placed_at&range=90d&granularity=day&time_zone=Europe/Berlin'
  const seriesPlan = planSeries(query(series), access, runtime.services, () => access) as SeriesPlan & { granularity: Granularity }
  await row('series 90d daily, Europe/Berlin', `/api/v1/bench_sales:series?${series}`, compileSeries(seriesPlan))
  const histogram = 'field=amount&buckets=20'
  await row('histogram amount, 20 buckets', `/api/v1/bench_sales:histogram?${histogram}`, compileHistogram(planHistogram(query(histogram), access, runtime.services, () => access)))
  const context = { access, accessOf: () => access, services: runtime.services, rowPermissions: false, maxFilterLength: MAX_FILTER_QUERY }
  // The floor of a seek as a request: the same statement behind a bare Fastify route (no token, no
  // access, pg's own row parsing and JSON), through inject as tablegate is, on a pool as tablegate's.
  const floorPool = new pg.Pool({ connectionString: database.url, max: 2 })
  const floor = Fastify()
  let floorStatement = { text: '', values: [] as unknown[] }
  floor.get('/seek', async () => ({ items: (await floorPool.query(floorStatement.text, floorStatement.values)).rows }))
  const floorGet = async (): Promise<void> => {
    const response = await floor.inject({ method: 'GET', url: '/seek' })
    if (response.statusCode !== 200) throw new Error(`floor answered ${response.statusCode}`)
  }
  for (const position of [1_000, 100_000, 900_000]) {
    const seek = `position=${position}&order_by=${encodeURIComponent('placed_at desc')}&page_size=50`
    const statement = compileList(planSeek(query(seek), context))
    await row(`seek ${position}, order_by placed_at desc`, `/api/v1/bench_sales:seek?${seek}`, statement)
    floorStatement = compile(statement)
    const [served, floored] = await timeBoth(runs, async () => await get(`/api/v1/bench_sales:seek?${seek}`), floorGet)
    console.log(`  as requests: tablegate ${served.toFixed(2)}, the plain SQL behind bare Fastify ${floored.toFixed(2)}, ratio ${(served / floored).toFixed(2)}`)
    const jump = async (): Promise<void> => {
      await db.query(`SELECT * FROM bench_sales WHERE (placed_at, id) <= (SELECT placed_at, id FROM bench_sales ORDER BY placed_at DESC, id DESC OFFSET $1 LIMIT 1)
        ORDER BY placed_at DESC, id DESC LIMIT 51`, [position])
    }
    console.log(`  plain SQL, index-only anchor then keyset page    ${(await time(runs, jump)).toFixed(2).padStart(22)}`)
  }
  await floor.close()
  await floorPool.end()
} finally {
  await app.close()
  await db.end()
  await database.stop()
}
