// PgBouncer in transaction pooling mode in front of the test PostgreSQL, for `npm run test:pooled`:
// a wildcard entry serves every test database, and a second instance serves reads with
// default_transaction_read_only set per server connection, as an operator sets up a read entry.
// It passes no startup parameter tablegate could lean on (no ignore_startup_parameters).
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from '../../lib/db/embedded.js'

/** Where Debian installs it, outside the PATH of users other than root. */
const SBIN_PGBOUNCER = '/usr/sbin/pgbouncer'

export interface PgBouncers {
  /** The pooler for everything: TEST_DATABASE_URL of a pooled run. */
  readonly url: string
  /** The pooler whose server connections are read-only: for DATABASE_READ_URL. */
  readonly readUrl: string
  /** The server connections the main pooler holds open to `database` (its admin console's SHOW SERVERS). */
  serverConnections (database: string): Promise<number>
  stop (): Promise<void>
}

function urlAt (serverUrl: URL, port: number): string {
  const url = new URL(serverUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  return url.toString()
}

async function waitUntilServing (url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log()}`)
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.query('SELECT 1')
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.end().catch(() => {})
    }
  }
  throw new Error(`pgbouncer did not start: ${log()}`)
}

async function startOne (dir: string, name: string, serverUrl: URL, extra: string): Promise<{ url: string, child: ChildProcess }> {
  const port = await freePort()
  const ini = join(dir, `${name}.ini`)
  writeFileSync(ini, [
    '[databases]',
    `* = host=${serverUrl.hostname} port=${serverUrl.port}${extra}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `admin_users = ${decodeURIComponent(serverUrl.username)}`,
    'max_client_conn = 2000',
    'default_pool_size = 10',
    'max_db_connections = 10',
    'server_check_delay = 0',
    'log_connections = 0',
    'log_disconnections = 0',
    '',
  ].join('\n'), { mode: 0o644 })
  // PgBouncer refuses to run as root; -u drops to the account the Debian package creates.
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
  const child = spawn(existsSync(SBIN_PGBOUNCER) ? SBIN_PGBOUNCER : 'pgbouncer', [...asRoot, ini], { stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
  const url = urlAt(serverUrl, port)
  await waitUntilServing(url, child, () => output)
  return { url, child }
}

/** Starts the two poolers in front of the PostgreSQL at `serverUrl` (its user and password). */
export async function startPgBouncers (serverUrl: string): Promise<PgBouncers> {
  const server = new URL(serverUrl)
  const dir = mkdtempSync(join(tmpdir(), 'tablegate-pgbouncer-'))
  // pgbouncer reads these after dropping root.
  chmodSync(dir, 0o755)
  writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(server.username)}" "${decodeURIComponent(server.password)}"\n`, { mode: 0o644 })
  const main = await startOne(dir, 'main', server, '')
  const read = await startOne(dir, 'read', server, " connect_query='SET default_transaction_read_only = on'")
  return {
    url: main.url,
    readUrl: read.url,
    serverConnections: async (database) => {
      const console = new URL(main.url)
      console.pathname = '/pgbouncer'
      const client = new pg.Client({ connectionString: console.toString() })
      await client.connect()
      try {
        return (await client.query<{ database: string }>('SHOW SERVERS')).rows.filter((row) => row.database === database).length
      } finally {
        await client.end()
      }
    },
    stop: async () => {
      for (const { child } of [main, read]) {
        if (child.exitCode !== null) continue
        const exited = new Promise((resolve) => child.once('exit', resolve))
        // Immediate shutdown: SIGINT would wait for every client to leave.
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
