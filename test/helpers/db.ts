// A fresh database per test file on the run's PostgreSQL (TEST_DATABASE_URL), dropped afterwards.
import { after } from 'node:test'
import { randomBytes } from 'node:crypto'
import pg from 'pg'

function serverUrl (): string {
  const url = process.env.TEST_DATABASE_URL
  if (url === undefined || url === '') throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`')
  return url
}

/** Work on a connection of its own to `url`, closed afterwards. */
export async function withClient<T> (url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

// node:test runs a scope's `after` hooks in the order they were registered, so a file's database,
// created before its app, was dropped before the app closed: behind PgBouncer a query still on its
// way then waited for the dropped database until the pooler's query_wait_timeout (120 s) gave up,
// and the file with it. What uses a database is released before its drop, last registered first.
const releases = new Map<string, Array<() => Promise<void>>>()

function databaseName (databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1))
}

/**
 * Registers `release` (an app's close, a pool's end) to run before `databaseUrl`'s database is
 * dropped, and returns it as a function that runs it once: for an `after` hook of the scope that
 * made it, which may run before the drop or after it.
 */
export function releaseBeforeDrop (databaseUrl: string, release: () => Promise<void> | void): () => Promise<void> {
  let released: Promise<void> | undefined
  const once = async (): Promise<void> => { await (released ??= Promise.resolve().then(release)) }
  const name = databaseName(databaseUrl)
  releases.set(name, [...releases.get(name) ?? [], once])
  return once
}

/**
 * A pool on a test file's database, ended before the database is dropped. pg-pool's `end()`
 * resolves before its idle connections have closed, so the drop's FORCE may still terminate one,
 * whose "terminating connection due to administrator command" the pool then emits: it must not
 * end the file as an uncaught error (it did, once, in CI).
 */
export function databasePool (databaseUrl: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max })
  pool.on('error', () => {})
  after(releaseBeforeDrop(databaseUrl, async () => { await pool.end() }))
  return pool
}

/**
 * Creates an empty database for the calling test file and returns its URL; dropped after the file.
 * The login store's own schema (tablegate_auth, a new database's default) is on its search path, so
 * that tests read the store's tables by their names; `storeOnSearchPath: false` leaves the search
 * path as a new install's is.
 */
export async function freshDatabase (options: { readonly storeOnSearchPath?: boolean } = {}): Promise<string> {
  const name = `tablegate_test_${randomBytes(6).toString('hex')}`
  await withClient(serverUrl(), async (c) => {
    await c.query(`CREATE DATABASE "${name}"`)
    if (options.storeOnSearchPath !== false) await c.query(`ALTER DATABASE "${name}" SET search_path TO "$user", public, tablegate_auth`)
  })
  after(async () => {
    for (const release of (releases.get(name) ?? []).reverse()) await release()
    releases.delete(name)
    await withClient(serverUrl(), async (c) => { await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) })
  })
  const url = new URL(serverUrl())
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs SQL text (a fixture schema) on a database. */
export async function runSql (databaseUrl: string, text: string): Promise<void> {
  await withClient(databaseUrl, async (client) => { await client.query(text) })
}
