// The benchmarks' PostgreSQL: BENCH_DATABASE_URL when set, else an embedded one in a temp dir that
// `stop()` removes again. `preload`: shared libraries the embedded one loads at start (it is
// started, told so with ALTER SYSTEM, and started again); a given database is taken as it is.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { startEmbedded } from '../lib/db/embedded.js'

export interface BenchDatabase {
  readonly url: string
  /** The embedded data directory (its postmaster.pid names the server), when embedded. */
  readonly dataDir: string | undefined
  stop (): Promise<void>
}

export interface BenchDatabaseOptions {
  readonly preload?: readonly string[]
}

export async function benchDatabase (options: BenchDatabaseOptions = {}): Promise<BenchDatabase> {
  const given = process.env.BENCH_DATABASE_URL
  if (given !== undefined && given !== '') return { url: given, dataDir: undefined, stop: async () => {} }
  const dataDir = mkdtempSync(join(tmpdir(), 'tablegate-bench-'))
  let embedded = await startEmbedded(dataDir)
  if (options.preload !== undefined && options.preload.length > 0) {
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    await client.query(`ALTER SYSTEM SET shared_preload_libraries = '${options.preload.join(',')}'`)
    await client.end()
    await embedded.stop()
    embedded = await startEmbedded(dataDir)
  }
  const started = embedded
  return {
    url: started.url,
    dataDir,
    stop: async () => {
      await started.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
