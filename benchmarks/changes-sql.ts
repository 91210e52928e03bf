// The logged update without HTTP (`npm run bench:changes -- --only writes`, after the writes
// through the server): the server's own two update statements, as it ran them (its
// /bench/update-statements), run again from this process on `connections` connections, plain
// and logged in interleaved rounds of 1 s. What the log costs PostgreSQL here is what it costs in
// SQL, whatever the server does. Either part's on/off is PostgreSQL's own (pg µs off/on), lifted
// by what shares its core: autocannon over HTTP, this process's pg client here.
import pg from 'pg'
import { postgresTicks, postgresTicksSince } from './harness.js'

/** A statement as the server ran it, and how its parameters are filled (their order, checked by each run updating one row). */
interface Statement {
  readonly name: string
  readonly text: string
  readonly values: (row: TenantRow, status: string) => unknown[]
}

interface TenantRow { readonly id: string, version: number }

interface Round { statements: number, ticks: number, clientMicros: number }

const TENANT = 't0'

/** Runs `statement` on each connection over its own rows (no two connections on one row) for `ms`. */
async function runFor (clients: readonly pg.Client[], rows: readonly TenantRow[], statement: Statement, ms: number): Promise<number> {
  const until = performance.now() + ms
  let done = 0
  await Promise.all(clients.map(async (client, c) => {
    const own = Math.floor((rows.length - 1 - c) / clients.length) + 1
    for (let k = 0; performance.now() < until; k++) {
      const row = rows[c + clients.length * (k % own)]!
      const result = await client.query({ name: statement.name, text: statement.text, values: statement.values(row, k % 2 === 0 ? 'locked' : 'open') })
      // A statement that updated nothing measured nothing: its parameters are not in the order assumed.
      if (result.rowCount !== 1) throw new Error(`${statement.name} updated ${result.rowCount} rows: its parameters moved`)
      row.version++
      done++
    }
  }))
  return done
}

/** `base`: the bench server (./servers/changes.ts), which has run an update of each resource. */
export async function sqlWritesPart (base: string, databaseUrl: string, postmaster: number | undefined, connections: number, rounds: number): Promise<void> {
  const texts = await (await fetch(`${base}/bench/update-statements`)).json() as { feed_plain?: string, feed_logged?: string }
  const { feed_plain: plainText, feed_logged: loggedText } = texts
  if (plainText === undefined || loggedText === undefined) throw new Error('the bench server ran no update of feed_plain or feed_logged')
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const clients: pg.Client[] = []
  try {
    // The statements' parameters as lib/sql/write.ts binds them: the status set, the key, the tenant, the version (If-Match); the logged one adds its resource.
    const plain: Statement = { name: 'plain', text: plainText, values: (row, status) => [status, row.id, TENANT, row.version] }
    const logged: Statement = { name: 'logged', text: loggedText, values: (row, status) => [status, row.id, TENANT, row.version, 'feed_logged'] }
    const rowsOf = async (table: string): Promise<TenantRow[]> => (await pool.query<TenantRow>(`SELECT id::text AS id, version FROM ${table} WHERE tenant_id = $1 ORDER BY id`, [TENANT])).rows
    const rows = { plain: await rowsOf('feed_plain'), logged: await rowsOf('feed_logged') }
    for (let c = 0; c < connections; c++) {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      clients.push(client)
    }
    const totals = { plain: { statements: 0, ticks: 0, clientMicros: 0 }, logged: { statements: 0, ticks: 0, clientMicros: 0 } }
    const measure = async (which: 'plain' | 'logged', total: Round | undefined): Promise<void> => {
      const before = postgresTicks(postmaster)
      const client = process.cpuUsage()
      const statements = await runFor(clients, rows[which], which === 'plain' ? plain : logged, 1000)
      const used = process.cpuUsage(client)
      if (total === undefined) return
      total.statements += statements
      total.ticks += postgresTicksSince(postmaster, before)
      total.clientMicros += used.user + used.system
    }
    await measure('plain', undefined)
    await measure('logged', undefined)
    for (let round = 0; round < rounds; round++) {
      for (const which of round % 2 === 0 ? ['plain', 'logged'] as const : ['logged', 'plain'] as const) await measure(which, totals[which])
    }
    const perSecond = (r: Round): number => r.statements / rounds
    const pgMicros = (r: Round): number => r.ticks * 10_000 / r.statements
    const { plain: off, logged: on } = totals
    console.log(`${'the same updates in SQL'.padEnd(28)}${perSecond(off).toFixed(0).padStart(9)}${''.padStart(10)}${perSecond(on).toFixed(0).padStart(8)}${(perSecond(on) / perSecond(off)).toFixed(2).padStart(8)}` +
      `${''.padStart(9)}${''.padStart(20)}${`${pgMicros(off).toFixed(0)}/-/${pgMicros(on).toFixed(0)}`.padStart(19)}${`${(off.clientMicros / off.statements).toFixed(0)}/-/${(on.clientMicros / on.statements).toFixed(0)}`.padStart(21)}`)
    console.log(`  the server's two update statements from ${connections} connections of this process (no HTTP), ${rounds} rounds of 1 s; pg µs off/on ${(pgMicros(off) / pgMicros(on)).toFixed(2)}: the on/off PostgreSQL alone would give`)
  } finally {
    await Promise.all(clients.map(async (client) => await client.end()))
    await pool.end()
  }
}
