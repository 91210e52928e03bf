// The floor: the least a hand-written Fastify + pg server does for the same scenarios, with no
// authentication, no access control and pg's default row parsing (timestamps become Date).
// SIGUSR2: prints its V8 heap (./heap-signal.ts), as tablegate's bench server does.
import Fastify from 'fastify'
import pg from 'pg'
import { answerHeapSignal } from './heap-signal.js'

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 20 })
pool.on('error', () => {})
const app = Fastify()
const COLUMNS = 'id, title, status, total, placed_at, owner_id, version'

app.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
  const { rows } = await pool.query(`SELECT ${COLUMNS} FROM bench_orders WHERE id = $1`, [request.params.id])
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
  return rows[0]
})

app.get<{ Querystring: { after?: string, status?: string } }>('/orders', async (request) => {
  const { after, status } = request.query
  const { rows } = status !== undefined
    ? await pool.query(`SELECT ${COLUMNS} FROM bench_orders WHERE status = $1 ORDER BY placed_at DESC, id DESC LIMIT 50`, [status])
    : await pool.query(`SELECT ${COLUMNS} FROM bench_orders WHERE id > $1 ORDER BY id LIMIT 50`, [after ?? 0])
  return { items: rows }
})

app.post<{ Body: { title: string, status: string, total: string } }>('/orders', async (request, reply) => {
  const { title, status, total } = request.body
  const { rows } = await pool.query(`INSERT INTO bench_orders (title, status, total, owner_id) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [title, status, total, process.env.BENCH_OWNER])
  return reply.code(201).send(rows[0])
})

app.patch<{ Params: { id: string }, Body: { status: string } }>('/orders/:id', async (request, reply) => {
  const ifMatch = request.headers['if-match']
  const { rows } = ifMatch === '*'
    ? await pool.query(`UPDATE bench_orders SET status = $2, version = version + 1 WHERE id = $1 RETURNING ${COLUMNS}`, [request.params.id, request.body.status])
    : await pool.query(`UPDATE bench_orders SET status = $2, version = version + 1 WHERE id = $1 AND version = $3 RETURNING ${COLUMNS}`,
      [request.params.id, request.body.status, ifMatch])
  if (rows.length === 0) return reply.code(412).send({ error: 'stale' })
  return rows[0]
})

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`ready ${typeof address === 'object' && address !== null ? address.port : 0}\n`)
answerHeapSignal()
process.on('SIGTERM', () => { void app.close().then(async () => { await pool.end() }).then(() => process.exit(0)) })
