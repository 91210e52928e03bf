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
