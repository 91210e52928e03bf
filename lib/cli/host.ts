// Host-side access for the CLI: config → databases → user store, closed again after one command.
import { discoverConfigFile, loadConfigFile } from '../config/load.js'
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js'
import { ConfigError } from '../config/validate.js'
import { connectDatabases } from '../db/connect.js'
import { userStoreOf, type UserStore } from '../auth/users.js'
import { ensureTrigram } from '../db/extensions.js'
import { applyMigrations } from '../db/migrations.js'

export async function loadResolvedConfig (explicit: string | undefined): Promise<ResolvedConfig> {
  const file = discoverConfigFile(explicit)
  if (file === undefined) {
    throw new ConfigError('no config found: pass --config FILE, set TABLEGATE_CONFIG, or create ./tablegate.config.ts')
  }
  return resolveConfig(await loadConfigFile(file))
}

const warn = (message: string): void => { process.stderr.write(`tablegate: ${message}\n`) }

export async function withUsers<T> (configFile: string | undefined, work: (users: UserStore) => Promise<T>): Promise<T> {
  const config = await loadResolvedConfig(configFile)
  if (config.verifier !== undefined) throw new ConfigError('this config verifies tokens of another auth server: manage users there')
  const db = await connectDatabases(config, { warn })
  try {
    const users = userStoreOf(config, db)
    await users.migrate()
    return await work(users)
  } finally {
    await db.close()
  }
}

/** `tablegate migrate`: the auth store, pg_trgm, and the application's own migrations. */
export async function migrateAll (configFile: string | undefined): Promise<string[]> {
  const config = await loadResolvedConfig(configFile)
  const db = await connectDatabases(config, { warn })
  try {
    if (config.verifier === undefined) {
      await userStoreOf(config, db).migrate()
    }
    await ensureTrigram(db.app, true, warn)
    return config.migrations === undefined ? [] : await applyMigrations(db.app, config.migrations)
  } finally {
    await db.close()
  }
}
