// `npm run bench:page-json`: who should write a page's JSON? The same 50-row page (with its
// 51st row, permissions and, for PostgreSQL, ETags and ISO timestamps) read as rows for Node to
// write, or built by PostgreSQL as PostgREST does (json_agg, or string_agg of text). Prints the
// PostgreSQL backend's CPU and this process's CPU per page, one connection, sequential.
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { seedOrders } from './bench-orders.js'
import { recordTypes } from '../lib/db/types.js'

const PAGES = 4000
const database = await benchDatabase()
const setup = new pg.Client({ connectionString: database.url })
await setup.connect()
await seedOrders(setup, 100_000, 'u1')
await setup.end()

const page = 'SELECT * FROM bench_orders WHERE owner_id = $1 ORDER BY id LIMIT 51'
const numbered = `(SELECT *, row_number() OVER () AS n FROM (${page}) p) t`
const variants: Record<string, string> = {
  'rows (Node writes JSON)': `SELECT "id", "title", "status", "total", "placed_at", "owner_id", "version", ("owner_id" = $2) AS "__can_update", ("owner_id" = $3) AS "__can_delete"
    FROM bench_orders WHERE owner_id = $1 ORDER BY id LIMIT 51`,
  'json_agg + to_char + md5': `SELECT coalesce(json_agg(json_build_object('id', id::text, 'title', title, 'status', status, 'total', total::text,
      'placed_at', to_char(placed_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'owner_id', owner_id, 'version', version,
      'etag', '"' || md5('bench_orders/' || version::text) || '"', 'permissions', json_build_object('update', owner_id = $2, 'delete', owner_id = $3))) FILTER (WHERE n <= 50), '[]')::text AS items,
    count(*) AS n, max(id) FILTER (WHERE n = 50) AS last FROM ${numbered}`,
  'string_agg of text': `SELECT string_agg('{"id":"' || id || '","title":' || to_json(title) || ',"status":' || to_json(status) || ',"total":' || coalesce('"' || total || '"', 'null') ||
      ',"placed_at":' || coalesce(to_char(placed_at, '"YYYY-MM-DD"T"HH24:MI:SS.US"Z""'), 'null') || ',"owner_id":' || coalesce(to_json(owner_id)::text, 'null') ||
      ',"version":' || version || ',"permissions":{"update":' || (owner_id = $2) || ',"delete":' || (owner_id = $3) || '}}', ',') FILTER (WHERE n <= 50) AS items,
    count(*) AS n, max(id) FILTER (WHERE n = 50) AS last FROM ${numbered}`,
}

const client = new pg.Client({ connectionString: database.url, types: recordTypes })
await client.connect()
await client.query("SET TIME ZONE 'UTC'")
const backend = Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid)
const ticks = (): number => {
  const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${PAGES} pages of 50 rows, one connection, prepared, round 2 of 2`)
try {
  for (let round = 0; round < 2; round++) {
    for (const [name, text] of Object.entries(variants)) {
      const run = async (): Promise<void> => { await client.query({ name: name.replace(/\W/g, '_'), text, values: ['u1', 'u1', 'u1'] }) }
      for (let i = 0; i < 200; i++) await run()
      const databaseBefore = ticks()
      const nodeBefore = process.cpuUsage()
      for (let i = 0; i < PAGES; i++) await run()
      const node = process.cpuUsage(nodeBefore)
      if (round === 1) {
        console.log(`${name.padEnd(26)} PostgreSQL ${((ticks() - databaseBefore) * 10_000 / PAGES).toFixed(0).padStart(4)} µs/page   Node (pg client) ${((node.user + node.system) / PAGES).toFixed(0).padStart(4)} µs/page`)
      }
    }
  }
} finally {
  await client.end()
  await database.stop()
}
