// `npm test`: one PostgreSQL for the whole run (embedded in a temp dir unless TEST_DATABASE_URL is
// set), then node:test over every compiled *.test.js; each test file makes its own database.
// Arguments are parts of paths that select files. `--pooled` (`npm run test:pooled`) runs them
// through PgBouncer in transaction mode (test/helpers/pgbouncer.ts) with DATABASE_POOLER set, and
// adds test/pooled/, whose tests need the poolers.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EmbeddedDatabaseError, startEmbedded, type EmbeddedDatabase } from '../lib/db/embedded.js'
import { startPgBouncers, type PgBouncers } from './helpers/pgbouncer.js'

const here = fileURLToPath(new URL('.', import.meta.url))

function testFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.js') ? [path] : []
  }).sort()
}

const args = process.argv.slice(2)
const pooled = args.includes('--pooled')
const filter = args.filter((arg) => arg !== '--pooled')
const files = testFiles(here)
  .filter((f) => pooled || !relative(here, f).startsWith(`pooled${sep}`))
  .filter((f) => filter.length === 0 || filter.some((part) => relative(here, f).includes(part)) || (pooled && relative(here, f).startsWith(`pooled${sep}`)))
let embedded: EmbeddedDatabase | undefined
let dataDir: string | undefined
let poolers: PgBouncers | undefined
const env = { ...process.env }
if (env.TEST_DATABASE_URL === undefined || env.TEST_DATABASE_URL === '') {
  dataDir = mkdtempSync(join(tmpdir(), 'tablegate-test-'))
  try {
    embedded = await startEmbedded(dataDir)
  } catch (err) {
    if (!(err instanceof EmbeddedDatabaseError)) throw err
    console.error(`npm test: ${err.message}`)
    process.exit(1)
  }
  env.TEST_DATABASE_URL = embedded.url
}
if (pooled) {
  poolers = await startPgBouncers(env.TEST_DATABASE_URL)
  env.TEST_DIRECT_DATABASE_URL = env.TEST_DATABASE_URL
  env.TEST_DATABASE_URL = poolers.url
  env.TEST_POOLED_READ_URL = poolers.readUrl
  env.DATABASE_POOLER = 'transaction'
}

const child = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...files.map((f) => relative(process.cwd(), f))], { stdio: 'inherit', env })
const code = await new Promise<number>((resolve) => {
  child.on('exit', (exitCode, signal) => { resolve(exitCode ?? (signal === null ? 1 : 128)) })
})
await poolers?.stop()
await embedded?.stop()
if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
process.exitCode = code
