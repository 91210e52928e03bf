// The benchmarks' PostgreSQL: BENCH_DATABASE_URL when set, else an embedded one in a temp dir that
// `stop()` removes again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbedded } from '../lib/db/embedded.js'

export interface BenchDatabase {
  readonly url: string
  /** The embedded data directory (its postmaster.pid names the server), when embedded. */
  readonly dataDir: string | undefined
  stop (): Promise<void>
}

export async function benchDatabase (): Promise<BenchDatabase> {
  const given = process.env.BENCH_DATABASE_URL
  if (given !== undefined && given !== '') return { url: given, dataDir: undefined, stop: async () => {} }
  const dataDir = mkdtempSync(join(tmpdir(), 'tablegate-bench-'))
  const embedded = await startEmbedded(dataDir)
  return {
    url: embedded.url,
    dataDir,
    stop: async () => {
      await embedded.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
