// `tablegate init`: the live database → a config file and a summary. The database is found as
// the other commands find it (DATABASE_URL, else the embedded one in the data directory), but no
// config is loaded: there is none yet, and it is what this writes.
import { existsSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { resolveConfig } from '../config/resolve.js'
import { ConfigError } from '../config/validate.js'
import { createPool } from '../db/pool.js'
import { startEmbedded } from '../db/embedded.js'
import { initPlan, summarize, type InitOptions } from '../init/index.js'
import type { CliIo } from './io.js'

export interface InitCommand extends InitOptions {
  readonly out: string
  readonly force?: boolean
}

export async function runInit (command: InitCommand, io: CliIo, cwd = process.cwd()): Promise<void> {
  const out = resolve(cwd, command.out)
  if (existsSync(out) && command.force !== true) throw new ConfigError(`${command.out} exists: pass --force to overwrite it`)
  const settings = resolveConfig({})
  const embedded = settings.databaseUrl === undefined
    ? await startEmbedded(settings.dataDir, { warn: (message) => { io.err(`tablegate: ${message}`) } })
    : undefined
  const pool = createPool(settings.databaseUrl ?? embedded!.url, { max: 1, applicationName: 'tablegate-init', connectTimeoutMs: settings.connectTimeoutMs })
  try {
    const { plan, text } = await initPlan(pool, command)
    writeFileSync(out, text)
    for (const line of summarize(plan)) io.out(line)
    io.out(`wrote ${command.out}: review its TODOs, then \`tablegate check\` and \`tablegate serve\``)
  } finally {
    await pool.end()
    await embedded?.stop()
  }
}
