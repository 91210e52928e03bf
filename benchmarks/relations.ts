// `npm run bench:relations [-- --requests N]`: what embedding costs. On 100,000 orders of 10,000
// customers (each in one of 20 regions), each order with 3 lines, a list page of 50 with the
// customer embedded (its name, then the whole customer, then the customer and its region) and with
// its lines (a to-many, their sku, then every field), beside the same page without, the requests
// alternating so that both see the same machine. Per request: the server's
// CPU in this process (HTTP inject, plan, run, serialize), the wall time, and PostgreSQL's own
// execution time of the page's one statement (EXPLAIN ANALYZE, apart; the server prepares its
// statements, so planning is not counted). BENCH_PLAN=1 prints each statement's EXPLAIN ANALYZE.
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import { statementsOf } from '../test/helpers/statements.js'

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } })
const requests = Number(values.requests)

const database = await benchDatabase()
const db = new pg.Client({ connectionString: database.url })
await db.connect()
await db.query(`
  CREATE TABLE regions (id bigserial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE customers (id bigserial PRIMARY KEY, name text NOT NULL, country text NOT NULL, region_id bigint REFERENCES regions (id),
    credit_limit numeric(12, 2), since timestamptz NOT NULL, deleted_at timestamptz, version integer NOT NULL DEFAULT 1);
  CREATE TABLE orders (id bigserial PRIMARY KEY, title text NOT NULL, customer_id bigint NOT NULL REFERENCES customers (id),
    total numeric(12, 2) NOT NULL, placed_at timestamptz NOT NULL, deleted_at timestamptz, version integer NOT NULL DEFAULT 1);
  INSERT INTO regions (name) SELECT 'region ' || n FROM generate_series(1, 20) AS n;
  INSERT INTO customers (name, country, region_id, credit_limit, since)
    SELECT 'customer ' || n, (ARRAY['DE', 'FR', 'NL'])[1 + n % 3], 1 + n % 20, (n % 500) * 10.5, timestamptz '2020-01-01' + n * interval '1 hour'
    FROM generate_series(1, 10000) AS n;
  INSERT INTO orders (title, customer_id, total, placed_at)
    SELECT 'order ' || n, 1 + n % 10000, (n % 1000) * 1.25, timestamptz '2026-01-01' + n * interval '1 second'
    FROM generate_series(1, 100000) AS n;
  CREATE INDEX orders_customer_id ON orders (customer_id);
  CREATE TABLE order_lines (id bigserial PRIMARY KEY, order_id bigint NOT NULL REFERENCES orders (id), position integer NOT NULL,
    sku text NOT NULL, quantity integer NOT NULL, price numeric(12, 2) NOT NULL);
  INSERT INTO order_lines (order_id, position, sku, quantity, price)
    SELECT o, p, 'sku-' || (o * 7 + p) % 1000, 1 + p, (o % 100) * 0.5 FROM generate_series(1, 100000) AS o, generate_series(1, 3) AS p;
  CREATE INDEX order_lines_order ON order_lines (order_id, position, id);
  ANALYZE regions; ANALYZE customers; ANALYZE orders; ANALYZE order_lines;
`)

const app = await createServer({
  databaseUrl: database.url,
  authSecret: 'bench-secret-0123456789abcdef',
  serverTiming: true,
  resources: {
    regions: { fields: { id: { type: 'bigint', readOnly: true }, name: { type: 'string' } } },
    customers: {
      softDelete: 'deleted_at',
      version: 'version',
      fields: {
        id: { type: 'bigint', readOnly: true },
        name: { type: 'string' },
        country: { type: 'string' },
        region_id: { type: 'bigint', references: 'regions' },
        credit_limit: { type: 'decimal' },
        since: { type: 'timestamp' },
      },
      relations: { region: { field: 'region_id' } },
    },
    orders: {
      softDelete: 'deleted_at',
      version: 'version',
      fields: {
        id: { type: 'bigint', readOnly: true },
        title: { type: 'string' },
        customer_id: { type: 'bigint', references: 'customers' },
        total: { type: 'decimal' },
        placed_at: { type: 'timestamp' },
      },
      relations: { customer: { field: 'customer_id' }, lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position' } },
    },
    order_lines: {
      fields: {
        id: { type: 'bigint', readOnly: true },
        order_id: { type: 'bigint', references: 'orders' },
        position: { type: 'integer' },
        sku: { type: 'string' },
        quantity: { type: 'integer' },
        price: { type: 'decimal' },
      },
    },
  },
})

interface Figures { cpu: number[], wall: number[], stages: Map<string, number[]> }

function median (values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function mean (values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length
}

try {
  await app.tablegate.users!.create({ email: 'bench@example.com', password: 'correct-horse-battery' })
  const { token } = await app.tablegate.users!.issueToken('bench@example.com', { ttlSeconds: 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const get = async (url: string): Promise<string> => {
    const response = await app.inject({ method: 'GET', url, headers })
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`)
    return String(response.headers['server-timing'] ?? '')
  }
  const plain = '/api/v1/orders?page_size=50'
  const cases: Array<[string, string]> = [
    ['customer.name', `${plain}&fields=id,title,customer_id,total,placed_at,version,deleted_at,customer.name`],
    ['customer (every field)', `${plain}&fields=id,title,customer_id,total,placed_at,version,deleted_at,customer`],
    ['customer, customer.region', `${plain}&fields=id,title,customer_id,total,placed_at,version,deleted_at,customer,customer.region`],
    ['lines.sku (to-many)', `${plain}&fields=id,title,customer_id,total,placed_at,version,deleted_at,lines.sku`],
    ['lines (every field)', `${plain}&fields=id,title,customer_id,total,placed_at,version,deleted_at,lines`],
  ]
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; 100,000 orders, 10,000 customers, 300,000 lines; ${requests} requests alternating per pair`)
  console.log('page of 50                        node CPU µs/req (mean)   wall ms (p50)   PostgreSQL ms (p50)   statements')
  for (const [name, url] of cases) {
    const figures: Record<'plain' | 'embedded', Figures> = { plain: { cpu: [], wall: [], stages: new Map() }, embedded: { cpu: [], wall: [], stages: new Map() } }
    for (let i = 0; i < 100; i++) await get(i % 2 === 0 ? plain : url)
    for (let i = 0; i < requests; i++) {
      const kind = i % 2 === 0 ? 'plain' : 'embedded'
      const cpu = process.cpuUsage()
      const start = process.hrtime.bigint()
      const timing = await get(kind === 'plain' ? plain : url)
      const wall = Number(process.hrtime.bigint() - start) / 1e6
      const used = process.cpuUsage(cpu)
      figures[kind].cpu.push(used.user + used.system)
      figures[kind].wall.push(wall)
      // Server-Timing: `plan;dur=0.05, db;dur=0.4, …`, the runner's stages of this request.
      for (const entry of timing.split(',')) {
        const match = /^\s*([a-z-]+);dur=([0-9.]+)/.exec(entry)
        if (match === null) continue
        const times = figures[kind].stages.get(match[1]!) ?? []
        times.push(Number(match[2]))
        figures[kind].stages.set(match[1]!, times)
      }
    }
    const database: Record<'plain' | 'embedded', number> = { plain: 0, embedded: 0 }
    for (const kind of ['plain', 'embedded'] as const) {
      const [statement, ...more] = await statementsOf(async () => { await get(kind === 'plain' ? plain : url) })
      if (statement === undefined || more.length > 0) throw new Error(`${kind}: ${1 + more.length} statements`)
      // The channel publishes texts only: this caller's pages bind no values (no tenant, no row filter).
      const times: number[] = []
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.query<{ 'QUERY PLAN': Array<{ 'Execution Time': number }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`)
        // Execution alone: the server runs its pages as prepared statements, planned once.
        times.push(rows[0]!['QUERY PLAN'][0]!['Execution Time'])
      }
      database[kind] = median(times)
      if (process.env.BENCH_PLAN !== undefined) console.log((await db.query(`EXPLAIN (ANALYZE, COSTS OFF) ${statement}`)).rows.map((r) => r['QUERY PLAN']).join('\n'))
    }
    const row = (label: string, kind: 'plain' | 'embedded'): string =>
      `${label.padEnd(34)}${mean(figures[kind].cpu).toFixed(0).padStart(10)}${median(figures[kind].wall).toFixed(3).padStart(24)}${database[kind].toFixed(3).padStart(18)}${'1'.padStart(15)}`
    const stages = (kind: 'plain' | 'embedded'): string => [...figures[kind].stages].map(([stage, times]) => `${stage} ${(mean(times) * 1000).toFixed(0)}`).join(', ')
    console.log(row('  without embeds', 'plain'))
    console.log(`      server stages, µs (mean): ${stages('plain')}`)
    console.log(row(`  with ${name}`, 'embedded'))
    console.log(`      server stages, µs (mean): ${stages('embedded')}`)
    const ratio = (mean(figures.embedded.cpu) / 1000 + database.embedded) / (mean(figures.plain.cpu) / 1000 + database.plain)
    console.log(`  ratio (node CPU + PostgreSQL): ${ratio.toFixed(2)}×`)
  }
} finally {
  await app.close()
  await db.end()
  await database.stop()
}
