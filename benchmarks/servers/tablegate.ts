// tablegate as the benchmark runs it: a real bearer token, a row filter (owner = caller), a field
// hidden from the caller, row permissions on, and write hooks as the example shop has them: the
// audit log on another resource, and a rule on order deletes. Writes no hook hears of (the
// measured create and patch) keep their one-statement paths. BENCH_OBSERVABILITY: `off` (no
// metrics), `timing` (metrics and Server-Timing); otherwise as shipped (metrics on).
// BENCH_RATE_LIMITS: `high` (request limits on, budgets no run reaches), `low` (reads 6,000 a
// minute per caller, the rest as high).
// BENCH_VERIFIER_JWK: tokens come from another issuer, verified with this public key (no login here).
// BENCH_WORKERS: that many processes on one port (node:cluster, as `tablegate serve --workers` runs them).
// BENCH_SCAN_GUARD=off: no scan guard (../warmup.ts measures the warm-up tax with and without it).
// BENCH_ROUND_TRIP=1: a list guard that sends `SELECT 1` before every list and judges nothing:
// what one more round trip to PostgreSQL costs a request (../warmup.ts --round-trip).
// SIGUSR2: prints its V8 heap (./heap-signal.ts).
import cluster from 'node:cluster'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createServer } from '../../lib/server.js'
import { auditLog } from '../../lib/index.js'
import { rows, sql } from '../../lib/public.js'
import shopRules from '../../examples/shop/rules.js'
import { ORDER_FIELDS } from '../bench-orders.js'
import { BENCH_AUDIENCE, BENCH_ISSUER } from '../issuer.js'
import { answerHeapSignal } from './heap-signal.js'

const workers = Number(process.env.BENCH_WORKERS ?? '1')
if (workers > 1 && cluster.isPrimary) {
  let listening = 0
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) process.stdout.write(`ready ${address.port}\n`)
  })
  for (let i = 0; i < workers; i++) cluster.fork()
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    cluster.on('exit', () => { if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0) })
  })
} else {
  await serveOne()
}

/** A list guard that costs one round trip and nothing else: no EXPLAIN, no verdict. */
async function roundTripGuard (app: FastifyInstance): Promise<void> {
  app.tablegate.addListGuard(async (_view, db) => {
    await rows(db, sql`SELECT 1`)
    return undefined
  })
}

async function serveOne (): Promise<void> {
  const observability = process.env.BENCH_OBSERVABILITY
  const limits = process.env.BENCH_RATE_LIMITS
  const neverReached = '100000000/min'
  const issuerKey = process.env.BENCH_VERIFIER_JWK
  const app = await createServer({
    ...(observability === 'off' ? { metrics: false } : {}),
    ...(observability === 'timing' ? { serverTiming: true } : {}),
    ...(limits === undefined ? {} : { rateLimits: { read: limits === 'low' ? '6000/min' : neverReached, write: neverReached, export: neverReached, aggregate: neverReached } }),
    ...(process.env.BENCH_SCAN_GUARD === 'off' ? { scanGuard: { mode: 'off' as const } } : {}),
    ...(issuerKey === undefined ? {} : { verifier: { keys: [JSON.parse(issuerKey)], issuer: BENCH_ISSUER, audience: BENCH_AUDIENCE } }),
    databaseUrl: process.env.BENCH_DATABASE_URL,
    authSecret: process.env.BENCH_AUTH_SECRET,
    resources: {
      bench_orders: {
        owner: 'owner_id',
        version: 'version',
        fields: { ...ORDER_FIELDS, owner_id: { type: 'string' }, cost: { type: 'decimal' } },
        access: {
          read: (ctx) => ({ filter: { owner_id: ctx.user.id } }),
          update: (ctx) => ({ filter: { owner_id: ctx.user.id } }),
          delete: (ctx) => ({ filter: { owner_id: ctx.user.id } }),
          fields: { cost: { read: ['admin'], write: ['admin'] } },
        },
      },
      bench_customers: { fields: { id: { type: 'bigint', readOnly: true }, name: { type: 'string' }, country: { type: 'string' } } },
      // The orders again, with their relations: only the relations scenarios read them this way,
      // so the other scenarios' records stay as they were.
      rel_orders: {
        table: 'bench_orders',
        fields: { ...ORDER_FIELDS, customer_id: { type: 'bigint', references: 'bench_customers' } },
        relations: {
          customer: { field: 'customer_id' },
          lines: { resource: 'bench_order_lines', by: 'order_id', orderBy: 'position' },
        },
      },
      bench_order_lines: {
        fields: { id: { type: 'bigint', readOnly: true }, order_id: { type: 'bigint', references: 'rel_orders' }, position: { type: 'integer' }, sku: { type: 'string' }, quantity: { type: 'integer' } },
      },
      bench_cards: { version: 'version', fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, position: { type: 'integer' } } },
      // The example shop's rule hears of deletes of `orders`: here, of bench_orders.
      orders: { table: 'bench_orders', version: 'version', fields: ORDER_FIELDS },
    },
    plugins: [[auditLog, { resources: ['bench_customers'] }], shopRules, ...(process.env.BENCH_ROUND_TRIP === '1' ? [fp(roundTripGuard, { name: 'bench-round-trip', dependencies: ['tablegate'] })] : [])],
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (cluster.isPrimary) process.stdout.write(`ready ${typeof address === 'object' && address !== null ? address.port : 0}\n`)
  process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)) })
  answerHeapSignal()
}
