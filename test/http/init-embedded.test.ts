// `tablegate init` without DATABASE_URL reads the project's embedded PostgreSQL in ./.tablegate,
// as the other commands use it: started for the command and stopped after it.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAlive, startEmbedded } from '../../lib/db/embedded.js'
import { runSql } from '../helpers/db.js'
import { cliRunnerInProcess } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'tablegate-init-embedded-'))
const dataDir = join(dir, '.tablegate')
after(() => {
  // As root, the data lives where the postgres user can reach it, linked from the data directory.
  const link = join(dataDir, 'pgdata')
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() === true) rmSync(join(readlinkSync(link), '..'), { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
})

/** The embedded postmaster's pid, while its pid file is there. */
function postmaster (): number | undefined {
  const file = join(dataDir, 'pgdata', 'postmaster.pid')
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined
}

test('init with no DATABASE_URL reads the embedded database of the project and stops it after', { timeout: 60_000 }, async () => {
  // The project's database, made and given a table as `tablegate migrate` would, then stopped.
  const database = await startEmbedded(dataDir)
  try {
    await runSql(database.url, 'CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body varchar(50) NOT NULL)')
  } finally {
    await database.stop()
  }
  // In this process, with neither DATABASE_URL nor AUTH_SECRET in the environment the run is given.
  const { code, stdout, stderr } = await cliRunnerInProcess({ cwd: dir })(['init'])
  assert.equal(code, 0, stderr)
  assert.equal(stderr, '')
  assert.match(stdout, /^1 table served: notes\n/)
  assert.match(readFileSync(join(dir, 'tablegate.config.ts'), 'utf8'), /body: \{ type: 'string', required: true, maxLength: 50 \},/)
  const pid = postmaster()
  assert.ok(pid === undefined || !isAlive(pid), 'init stopped the database it started')
})
