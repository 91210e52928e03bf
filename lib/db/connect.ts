// Resolved config → the databases a process uses: the app pool, the admin (auth store) pool, and
// the embedded PostgreSQL when no DATABASE_URL is given. Also settles AUTH_SECRET, which the
// embedded setup generates once and keeps beside the data.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { ResolvedConfig } from '../config/resolve.js'
import { ConfigError } from '../config/validate.js'
import { armStatementTimeout, createPool, type Pool } from './pool.js'
import { startEmbedded, type EmbeddedDatabase } from './embedded.js'
import { serverVersionNum, unsupportedServer } from './server-version.js'
import { storeSchema } from './store-schema.js'

export interface Databases {
  /** Writes: transactions with the configured statement timeout. */
  readonly app: Pool
  /** Reads: DATABASE_READ_URL (a replica) or the same database; read-only connections, so one statement is one read-only transaction. */
  readonly read: Pool
  /** The auth store's pool: ADMIN_DATABASE_URL when given, else the application database. */
  readonly admin: Pool
  /**
   * The change feed's reads of its log (lib/changes/): a few connections of their own, so a window
   * read for many followers never takes the writes' connections. Connects only when a feed is followed.
   */
  readonly changes: Pool
  readonly authSecret: string
  /** The built-in login's store schema (./store-schema.ts); undefined where another issuer's tokens are verified. */
  readonly authSchema: string | undefined
  readonly embedded: EmbeddedDatabase | undefined
  /** `server_version_num` of the writes' server, for the SQL that differs between majors (./server-version.ts). */
  readonly serverVersion: number
  close (): Promise<void>
}

/** The change feed's connections per process: its window reads and each cohort's question queue on them. */
const CHANGE_POOL_SIZE = 2
/**
 * The statement timeout of a start's own statements, and of the host commands' (`tablegate
 * migrate`, `users`, …), where the requests' is shorter: those are no request, and a start must not
 * fail on a busy machine because `statementTimeoutMs` is tight (migrations set their own).
 */
const STARTUP_TIMEOUT_MS = 60_000

/** The app is ready for requests: every pool's statements take `statementTimeoutMs` from now on. */
export async function armStatementTimeouts (db: Databases): Promise<void> {
  await Promise.all([db.app, db.read, db.admin, db.changes].map(armStatementTimeout))
}

export interface ConnectOptions {
  /** Called with warnings worth a line in the log (a generated secret). */
  readonly warn?: (message: string) => void
}

function embeddedSecret (dataDir: string, warn: (message: string) => void): string {
  const file = join(dataDir, 'auth-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true, mode: 0o711 })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600 })
  warn(`AUTH_SECRET is not set: generated one into ${file} for the embedded database. Set AUTH_SECRET in production.`)
  return secret
}

export async function connectDatabases (config: ResolvedConfig, options: ConnectOptions = {}): Promise<Databases> {
  const warn = options.warn ?? ((message: string) => { process.emitWarning(message) })
  let embedded: EmbeddedDatabase | undefined
  let url = config.databaseUrl
  let authSecret = config.authSecret
  if (url === undefined) {
    embedded = await startEmbedded(config.dataDir, { warn })
    url = embedded.url
    authSecret ??= embeddedSecret(config.dataDir, warn)
  } else if (authSecret === undefined) {
    throw new ConfigError('AUTH_SECRET is required when DATABASE_URL is set (it signs cookies and encrypts the signing keys)')
  }
  if (embedded === undefined) checkUrl('DATABASE_URL', url)
  const common = { statementTimeoutMs: config.statementTimeoutMs, startupTimeoutMs: STARTUP_TIMEOUT_MS, connectTimeoutMs: config.connectTimeoutMs, pooler: config.databasePooler }
  const sizes = config.poolSizes
  const app = createPool(url, { max: sizes.write, ...common, records: true })
  const read = createPool(config.databaseReadUrl ?? url, { max: sizes.read, ...common, records: true, readOnly: true, applicationName: 'tablegate-read' })
  // The auth store has pools of its own, with pg's default parsing (its timestamps are Dates).
  const admin = createPool(config.adminDatabaseUrl ?? url, { max: sizes.auth, applicationName: 'tablegate-auth', ...common })
  const changes = createPool(url, { max: CHANGE_POOL_SIZE, ...common, records: true, applicationName: 'tablegate-changes' })
  const close = async (): Promise<void> => {
    await app.end()
    await read.end()
    await admin.end()
    await changes.end()
    await embedded?.stop()
  }
  // The first connection says what is wrong with the URL, in the words of whoever set it.
  try {
    await app.query('SELECT 1')
  } catch (err) {
    await close()
    throw new ConfigError(`cannot connect to ${embedded === undefined ? `DATABASE_URL (${withoutPassword(url)})` : 'the embedded database'}: ${connectFailure(err)}`)
  }
  const serverVersion = await serverVersionNum(app)
  const unsupported = unsupportedServer(serverVersion)
  if (unsupported !== undefined) {
    await close()
    throw new ConfigError(unsupported)
  }
  const authSchema = config.verifier === undefined ? await storeSchema(admin, config.authSchema) : config.authSchema
  return { app, read, admin, changes, authSecret, authSchema, embedded, serverVersion, close }
}

function checkUrl (name: string, url: string): void {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {}
  if (parsed === undefined || !['postgres:', 'postgresql:'].includes(parsed.protocol)) {
    throw new ConfigError(`${name} is not a PostgreSQL URL such as postgres://user:password@host:5432/database`)
  }
}

function withoutPassword (url: string): string {
  const parsed = new URL(url)
  parsed.password = ''
  return parsed.href
}

/** The driver's refusal, and what usually fixes it. */
function connectFailure (err: unknown): string {
  const { code, message } = err as { code?: string, message?: string }
  const hint: Record<string, string> = {
    ECONNREFUSED: 'nothing accepts connections there: is PostgreSQL running on that host and port?',
    ENOTFOUND: 'the host name is not known',
    EAI_AGAIN: 'the host name cannot be looked up right now',
    ETIMEDOUT: 'the host does not answer',
    '28P01': 'the user name or the password is wrong',
    '28000': 'the server does not let this user in from here (pg_hba.conf)',
    '3D000': 'the database does not exist: create it, or name another in the URL',
  }
  // A transaction pooler (PgBouncer) refuses the settings a direct connection sends at startup.
  if (message?.startsWith('unsupported startup parameter') === true) return `${message} (a transaction pooler answers at this URL: set DATABASE_POOLER=transaction, or databasePooler: 'transaction' in the config)`
  return `${message ?? String(err)}${code !== undefined && hint[code] !== undefined ? ` (${hint[code]})` : ''}`
}
