// Host-side access for the CLI: config → the app (not listening) → its user or organization store, closed again
// after one command. Through the app, the config's plugins register their write hooks, so a change
// made here runs them as one made over HTTP does (the audit log records `host` as its actor).
// `migrate` runs the same migration step as a starting server (lib/bootstrap.ts).
import { discoverConfigFile, loadConfigFile } from '../config/load.js'
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js'
import { ConfigError } from '../config/validate.js'
import { connectDatabases, type Databases } from '../db/connect.js'
import type { UserOperations } from '../auth/users.js'
import type { OrganizationOperations } from '../auth/organizations.js'
import type { TablegateDecorator } from '../decorator.js'
import { checkModels, migrateDatabase, migrationsOf } from '../bootstrap.js'
import { applyPending, MIGRATION_TIMEOUT_MS } from '../db/migrations.js'
import { beginTransaction } from '../db/transaction.js'
import { createServer, type ServerOptions } from '../server.js'
import { runningServerUrl } from './running-server.js'
import { driftLines } from '../init/drift.js'
import { buildModels } from '../model/build.js'
import type { CliIo } from './io.js'

export async function loadResolvedConfig (explicit: string | undefined): Promise<ResolvedConfig> {
  const file = discoverConfigFile(explicit)
  if (file === undefined) {
    throw new ConfigError('no config found: pass --config FILE, set TABLEGATE_CONFIG, or create ./tablegate.config.ts')
  }
  return resolveConfig(await loadConfigFile(file))
}

/**
 * The config of a command run beside a server: where neither the config nor AUTH_URL gives a
 * public URL, that of the server running on the same data directory, so tokens fit it.
 */
async function loadJoiningConfig (explicit: string | undefined): Promise<ResolvedConfig> {
  const config = await loadResolvedConfig(explicit)
  if (config.config.publicUrl !== undefined || (process.env.AUTH_URL ?? '').trim() !== '') return config
  const running = runningServerUrl(config.dataDir)
  return running === undefined ? config : resolveConfig(config.config, { ...process.env, AUTH_URL: running })
}

type Warn = (message: string) => void

// A warning is a line of the command's io, as its refusal is: a caller with an io of its own (the
// tests run the CLI in-process) gets every line the process would print.
const warnTo = (io: CliIo): Warn => (message) => { io.err(`tablegate: ${message}`) }

async function withDatabases<T> (config: ResolvedConfig, warn: Warn, work: (db: Databases) => Promise<T>): Promise<T> {
  const db = await connectDatabases(config, { warn })
  try {
    return await work(db)
  } finally {
    await db.close()
  }
}

// Warnings and errors as the CLI's one-line messages; nothing else of the app's log.
function cliLogger (warn: Warn): NonNullable<ServerOptions['loggerInstance']> {
  const line = (obj: unknown, message?: string): void => { warn(message ?? (obj instanceof Error ? obj.message : String(obj))) }
  const quiet = (): void => {}
  const logger = { level: 'warn', fatal: line, error: line, warn: line, info: quiet, debug: quiet, trace: quiet, silent: quiet, child: () => logger }
  return logger as unknown as NonNullable<ServerOptions['loggerInstance']>
}

/** The app (not listening) the config makes, for one host-side command. */
async function withApp<T> (configFile: string | undefined, io: CliIo, work: (app: TablegateDecorator) => Promise<T>, needsOrganizations = false): Promise<T> {
  const config = await loadJoiningConfig(configFile)
  if (config.verifier !== undefined) throw new ConfigError('this config verifies tokens of another auth server: manage users there')
  // Before connecting: a config without organizations says so at once.
  if (needsOrganizations && config.organizations === undefined) throw new ConfigError('organizations are off: add `organizations: {}` to the config (docs/organizations.md)')
  // The public URL as resolved (a running server's, when the config and AUTH_URL give none).
  const app = await createServer({ ...config.config, publicUrl: config.publicUrl }, { loggerInstance: cliLogger(warnTo(io)) })
  try {
    await app.ready()
    return await work(app.tablegate)
  } finally {
    await app.close()
  }
}

export async function withUsers<T> (configFile: string | undefined, io: CliIo, work: (users: UserOperations) => Promise<T>): Promise<T> {
  return await withApp(configFile, io, async (app) => await work(app.users!))
}

export async function withOrganizations<T> (configFile: string | undefined, io: CliIo, work: (organizations: OrganizationOperations) => Promise<T>): Promise<T> {
  return await withApp(configFile, io, async (app) => await work(app.organizations!), true)
}

/**
 * `tablegate migrate`: the auth store, pg_trgm, the plugins' tables and the application's own migrations; then the
 * same model check as `check`, so "up to date" means a server would start.
 */
export async function migrateAll (configFile: string | undefined, io: CliIo): Promise<string[]> {
  const config = await loadResolvedConfig(configFile)
  const warn = warnTo(io)
  return await withDatabases(config, warn, async (db) => {
    const applied = await migrateDatabase(config, db, warn)
    await checkModels(config, db.app, warn)
    return applied
  })
}

/**
 * `tablegate check`: the config's names and its resources against the database, as a start checks
 * them, after a line for each drift between them (see docs/init.md); changes nothing.
 */
export async function checkAll (configFile: string | undefined, io: CliIo): Promise<number> {
  const config = await loadResolvedConfig(configFile)
  const warn = warnTo(io)
  // As a start would: the plugins' tables and the pending migrations applied first (and so checked
  // too), in a transaction that is rolled back once the models are checked against what they made.
  return await withDatabases(config, warn, async (db) => {
    const transaction = await beginTransaction(db.app, { timeoutMs: MIGRATION_TIMEOUT_MS })
    try {
      if (config.migrateOnStart) await applyPending(transaction.tx, migrationsOf(config))
      for (const line of await driftLines(transaction.tx, buildModels(config.resources, config.presenters).values(), config.resources)) warn(line)
      return (await checkModels(config, transaction.tx, warn)).size
    } finally {
      await transaction.rollback()
    }
  })
}
