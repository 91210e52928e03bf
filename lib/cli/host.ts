// Host-side access for the CLI: config → databases → user store, closed again after one command.
import { discoverConfigFile, loadConfigFile } from '../config/load.js'
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js'
import { ConfigError } from '../config/validate.js'
import { connectDatabases } from '../db/connect.js'
import { createUserStore, type UserStore } from '../auth/users.js'

export async function loadResolvedConfig (explicit: string | undefined): Promise<ResolvedConfig> {
  const file = discoverConfigFile(explicit)
  if (file === undefined) {
    throw new ConfigError('no config found: pass --config FILE, set TABLEGATE_CONFIG, or create ./tablegate.config.ts')
  }
  return resolveConfig(await loadConfigFile(file))
}

export async function withUsers<T> (configFile: string | undefined, work: (users: UserStore) => Promise<T>): Promise<T> {
  const config = await loadResolvedConfig(configFile)
  if (config.verifier !== undefined) throw new ConfigError('this config verifies tokens of another auth server: manage users there')
  const db = await connectDatabases(config, { warn: (message) => { process.stderr.write(`tablegate: ${message}\n`) } })
  try {
    const users = createUserStore({ pool: db.admin, schema: config.authSchema, roles: config.roles, authSecret: db.authSecret, issuer: config.publicUrl })
    await users.migrate()
    return await work(users)
  } finally {
    await db.close()
  }
}
