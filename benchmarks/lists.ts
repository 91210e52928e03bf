// `npm run bench:lists [-- --rows N]`: list latency of page 1 and page 1,000 by keyset on a large
// table (through HTTP inject, with a real token), beside the same pages read with OFFSET in plain
// SQL; and the cost of parsing, checking and compiling a typical filter, cold and cached.
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import { parseFilter } from '../lib/query/filter/parser.js'
import { checkFilter, type CheckResult } from '../lib/query/filter/checker.js'
import { compileFilter } from '../lib/sql/filter.js'
import { compile } from '../lib/sql/sql.js'
import { BoundedCache } from '../lib/cache.js'
import { queryModel } from '../lib/query/query-model.js'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '300' } } })
const rows = Number(values.rows)
const runs = Number(values.runs)

function summary (times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b)
  const q = (p: number): string => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(2)
  return `p50 ${q(0.5).padStart(8)}  p99 ${q(0.99).padStart(8)}`
}

async function time (n: number, work: () => Promise<unknown> | unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(30, n); i++) await work()
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint()
    await work()
    out.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return out
}

const database = await benchDatabase()
const databaseUrl = database.url
const db = new pg.Client({ connectionString: databaseUrl })
await db.connect()
await db.query(`DROP TABLE IF EXISTS bench_items;
  CREATE TABLE bench_items (id bigserial PRIMARY KEY, status text NOT NULL, total numeric(12, 2) NOT NULL, placed_at timestamptz NOT NULL);`)
await db.query(`INSERT INTO bench_items (status, total, placed_at)
  SELECT (ARRAY['draft', 'open', 'locked'])[1 + n % 3], (n % 1000) * 1.25, timestamptz '2026-01-01' + n * interval '1 second'
  FROM generate_series(1, $1::int) AS n`, [rows])
await db.query('CREATE INDEX bench_items_status_placed ON bench_items (status, placed_at, id)')
await db.query('ANALYZE bench_items')

const app = await createServer({
  databaseUrl,
  authSecret: 'bench-secret-0123456789abcdef',
  resources: {
    bench_items: {
      fields: {
        id: { type: 'bigint', readOnly: true },
        status: { type: 'string' },
        total: { type: 'decimal' },
        placed_at: { type: 'timestamp' },
      },
    },
  },
})
try {
  await app.tablegate.users!.create({ email: 'bench@example.com', password: 'correct-horse-battery' })
  const { token } = await app.tablegate.users!.issueToken('bench@example.com', { ttlSeconds: 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const get = async (url: string): Promise<{ next_page_token: string }> => {
    const response = await app.inject({ method: 'GET', url, headers })
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`)
    return JSON.parse(response.body) as { next_page_token: string }
  }
  let pageToken = ''
  for (let page = 1; page < 1000; page++) pageToken = (await get(`/api/v1/bench_items?page_size=50${pageToken === '' ? '' : `&page_token=${encodeURIComponent(pageToken)}`}`)).next_page_token

  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${rows} rows, ${runs} sequential requests each (ms)`)
  console.log(`list page 1, 50 rows (tablegate, keyset)      ${summary(await time(runs, async () => await get('/api/v1/bench_items?page_size=50')))}`)
  console.log(`list page 1000, 50 rows (tablegate, keyset)   ${summary(await time(runs, async () => await get(`/api/v1/bench_items?page_size=50&page_token=${encodeURIComponent(pageToken)}`)))}`)
  console.log(`  baseline: page 1 by OFFSET 0 in plain SQL   ${summary(await time(runs, async () => await db.query('SELECT * FROM bench_items ORDER BY id LIMIT 50 OFFSET 0')))}`)
  console.log(`  baseline: page 1000 by OFFSET in plain SQL  ${summary(await time(runs, async () => await db.query('SELECT * FROM bench_items ORDER BY id LIMIT 50 OFFSET 49950')))}`)
  const filtered = `/api/v1/bench_items?page_size=50&order_by=${encodeURIComponent('placed_at desc')}&filter=${encodeURIComponent('status = open AND placed_at > "2026-01-05T00:00:00Z"')}`
  console.log(`list, indexed filter + sort (tablegate)       ${summary(await time(runs, async () => await get(filtered)))}`)

  const model = app.tablegate.models.get('bench_items')!
  const query = queryModel(model.name, [...model.fields.values()], true)
  const text = 'status = open AND total > 10 AND placed_at > now() - 7d'
  const cold = await time(2000, () => compile(compileFilter(model, (checkFilter(parseFilter(text), query) as Extract<CheckResult, { ok: true }>).filter!)))
  const cache = new BoundedCache<CheckResult>(2000)
  const warm = await time(2000, () => cache.getOrCreate(text, () => checkFilter(parseFilter(text), query)))
  console.log(`filter parse+check+compile, uncached (µs)     ${summary(cold.map((ms) => ms * 1000))}`)
  console.log(`filter lookup, cached (µs)                    ${summary(warm.map((ms) => ms * 1000))}`)
} finally {
  await app.close()
  await db.end()
  await database.stop()
}
