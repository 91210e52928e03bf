// `npm run bench:resources [-- --rows N --seconds S]`: single-request latency and throughput of get,
// list (page 50), create and patch, through a real port with a real bearer token, on a seeded
// table. Issue 6 adds the hand-written floor beside these figures; this is the first measurement.
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import { ORDER_FIELDS, seedOrders } from './bench-orders.js'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' } } })
const rows = Number(values.rows)
const seconds = Number(values.seconds)
const connections = Number(values.connections)

const database = await benchDatabase()
const databaseUrl = database.url
const seed = new pg.Client({ connectionString: databaseUrl })
await seed.connect()
await seedOrders(seed, rows)
await seed.end()

const app = await createServer({
  databaseUrl,
  authSecret: 'bench-secret-0123456789abcdef',
  resources: {
    bench_orders: {
      version: 'version',
      fields: ORDER_FIELDS,
    },
  },
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`

interface Scenario { name: string, method: 'GET' | 'POST' | 'PATCH', path: () => string, body?: string, headers?: Record<string, string> }

try {
  await app.tablegate.users!.create({ email: 'bench@example.com', password: 'correct-horse-battery' })
  const { token } = await app.tablegate.users!.issueToken('bench@example.com', { ttlSeconds: 3600 })
  const auth = { authorization: `Bearer ${token}` }
  let n = 0
  const scenarios: Scenario[] = [
    { name: 'get by key', method: 'GET', path: () => `/api/v1/bench_orders/${1 + (n++ % rows)}` },
    { name: 'list page 50 (by key)', method: 'GET', path: () => '/api/v1/bench_orders?page_size=50' },
    { name: 'create', method: 'POST', path: () => '/api/v1/bench_orders', body: JSON.stringify({ title: 'new', total: '9.99' }), headers: { 'content-type': 'application/json' } },
    { name: 'patch (If-Match: *)', method: 'PATCH', path: () => `/api/v1/bench_orders/${1 + (n++ % rows)}`, body: JSON.stringify({ status: 'open' }), headers: { 'content-type': 'application/json', 'if-match': '*' } },
  ]
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${rows} rows, ${connections} connections, ${seconds} s per scenario`)
  console.log(`${'scenario'.padEnd(24)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'errors'.padStart(8)}`)
  for (const scenario of scenarios) {
    const run = async (duration: number) => await autocannon({
      url: base,
      connections,
      duration,
      requests: [{ method: scenario.method, setupRequest: (request) => ({ ...request, path: scenario.path(), headers: { ...auth, ...scenario.headers }, body: scenario.body }) }],
    })
    await run(1)
    const result = await run(seconds)
    const failed = result.errors + result.non2xx
    console.log(`${scenario.name.padEnd(24)}${result.requests.average.toFixed(0).padStart(9)}${result.latency.p50.toFixed(1).padStart(9)}${result.latency.p99.toFixed(1).padStart(9)}${String(failed).padStart(8)}`)
  }
} finally {
  await app.close()
  await database.stop()
}
