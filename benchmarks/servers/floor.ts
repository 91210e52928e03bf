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

// The relations scenarios' floor: the same page of rel_orders, its customer joined, its lines
// read by a second statement, or its orders filtered by their customer's country; each statement
// prepared once per connection, as tablegate's are. Each filter takes the form that costs least
// for its question, as a hand-written server picks it: `country` (40 customers, 0.4 % of orders)
// starts from the customers, whose ids an array carries to the orders' index (0.3 ms of
// PostgreSQL; 14-21 ms walking the orders and probing each customer, the `EXISTS` form);
// `country_upto` (half the customers) walks the orders in key order, probes each customer and
// stops at 50 (0.1 ms; the array form reads and sorts all 50,000 matching orders: 13-19 ms).
// Plans by EXPLAIN (ANALYZE) of the prepared statements on the seeded data.
const REL_COLUMNS = 'o.id, o.title, o.status, o.total, o.placed_at, o.customer_id'
const REL_PAGE = { name: 'rel_plain', text: `SELECT ${REL_COLUMNS} FROM bench_orders o ORDER BY o.id LIMIT 50` }
interface Line { order_id: string, id: string, position: number, sku: string, quantity: number }
app.get<{ Querystring: { embed?: string, country?: string, country_upto?: string } }>('/rel_orders', async (request) => {
  const { embed, country, country_upto: countryUpTo } = request.query
  if (embed === 'customer') {
    const { rows } = await pool.query({ name: 'rel_customer', text: `SELECT ${REL_COLUMNS}, c.id AS c_id, c.name AS c_name, c.country AS c_country
      FROM bench_orders o LEFT JOIN bench_customers c ON c.id = o.customer_id ORDER BY o.id LIMIT 50` })
    return {
      items: rows.map(({ c_id: id, c_name: name, c_country: country, ...order }) => ({ ...order, customer: id === null ? null : { id, name, country } })),
    }
  }
  if (embed === 'lines') {
    const { rows } = await pool.query(REL_PAGE)
    const lines = await pool.query<Line>({ name: 'rel_lines', text: 'SELECT order_id, id, position, sku, quantity FROM bench_order_lines WHERE order_id = ANY ($1) ORDER BY order_id, position, id',
      values: [rows.map((row) => row.id)] })
    const byOrder = new Map<string, Array<Omit<Line, 'order_id'>>>()
    for (const { order_id: order, ...line } of lines.rows) {
      const list = byOrder.get(order)
      if (list === undefined) byOrder.set(order, [line])
      else list.push(line)
    }
    return { items: rows.map((row) => ({ ...row, lines: byOrder.get(row.id) ?? [] })) }
  }
  if (country !== undefined) {
    const { rows } = await pool.query({ name: 'rel_country', text: `SELECT ${REL_COLUMNS} FROM bench_orders o
      WHERE o.customer_id = ANY (ARRAY(SELECT c.id FROM bench_customers c WHERE c.country = $1)) ORDER BY o.id LIMIT 50`, values: [country] })
    return { items: rows }
  }
  if (countryUpTo !== undefined) {
    const { rows } = await pool.query({ name: 'rel_country_upto', text: `SELECT ${REL_COLUMNS} FROM bench_orders o
      WHERE EXISTS (SELECT 1 FROM bench_customers c WHERE c.id = o.customer_id AND c.country <= $1) ORDER BY o.id LIMIT 50`, values: [countryUpTo] })
    return { items: rows }
  }
  return { items: (await pool.query(REL_PAGE)).rows }
})

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`ready ${typeof address === 'object' && address !== null ? address.port : 0}\n`)
answerHeapSignal()
process.on('SIGTERM', () => { void app.close().then(async () => { await pool.end() }).then(() => process.exit(0)) })
