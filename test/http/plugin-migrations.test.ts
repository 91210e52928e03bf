// Plugins' tables are made before the application's migrations, by `tablegate migrate`, by
// `tablegate check` (in the transaction it rolls back) and by a start: a migration may index the
// audit log on a fresh database. The audit log brings the index its history-of-a-record list needs.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { cliRunnerInProcess, root, type Run } from '../helpers/cli.js'
import auditLog from '../../plugins/audit-log/index.js'
import type { Config } from '../../lib/config/schema.js'

const dir = mkdtempSync(join(tmpdir(), 'tablegate-plugin-migrations-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const migrations = join(dir, 'migrations')
mkdirSync(migrations)
writeFileSync(join(migrations, '001_tasks.sql'), 'CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL);')
// As docs/plugins.md suggests for time ranges: an index of the application's own on the log.
writeFileSync(join(migrations, '002_audit_by_time.sql'), 'CREATE INDEX audit_by_time ON tablegate_audit_log (at);')
const tasks = { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true } } } as const
const configFile = join(dir, 'tablegate.config.mjs')
writeFileSync(configFile, `import { auditLog } from '${pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href}'
export default { roles: ['admin', 'user'], migrations: ${JSON.stringify(migrations)}, resources: { tasks: ${JSON.stringify(tasks)} }, plugins: [[auditLog, { resource: 'audit_log' }]] }
`)

/** `tablegate <command> --config <configFile>` on the database, run in this process. */
async function cli (databaseUrl: string, command: string): Promise<Run> {
  return await cliRunnerInProcess({ databaseUrl, secret: 'plugin-migrations-secret-0123456789', config: configFile, cwd: dir })([command])
}

async function indexesOf (databaseUrl: string): Promise<string[]> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ name: string }>(
    "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'tablegate_audit_log' ORDER BY indexname")).rows.map((r) => r.name))
}

const AUDIT_INDEXES = ['audit_by_time', 'tablegate_audit_log_pkey', 'tablegate_audit_log_resource_record_key_idx']

test('on a fresh database, check agrees and leaves nothing; migrate makes the log and then the migration indexing it', async () => {
  const databaseUrl = await freshDatabase()
  const checked = await cli(databaseUrl, 'check')
  assert.equal(checked.stderr, '')
  assert.equal(checked.code, 0)
  assert.equal(checked.stdout.trim(), 'the config and the database agree (2 resources)')
  assert.deepEqual(await indexesOf(databaseUrl), [], 'check rolls back the log with the migrations')
  const migrated = await cli(databaseUrl, 'migrate')
  assert.equal(migrated.stderr, '')
  assert.equal(migrated.code, 0)
  assert.deepEqual(await indexesOf(databaseUrl), AUDIT_INDEXES)
  const again = await cli(databaseUrl, 'migrate')
  assert.equal(again.code, 0, again.stderr)
  assert.deepEqual(await indexesOf(databaseUrl), AUDIT_INDEXES, 'run again, nothing is made twice')
})

const HISTORY_ROWS = 20_000

test('a start on a fresh database runs the migration indexing the log; a record\'s history over 20,000 audit rows is served', async () => {
  const databaseUrl = await freshDatabase()
  const config: Config = { databaseUrl, roles: ['admin', 'user'], migrations, resources: { tasks }, plugins: [[auditLog, { resource: 'audit_log' }]] }
  const app = await buildApp(config)
  assert.deepEqual(await indexesOf(databaseUrl), AUDIT_INDEXES)
  await runSql(databaseUrl, `
    INSERT INTO tablegate_audit_log (resource, operation, record_key, user_id, after)
      SELECT 'tasks', 'update', (n % 5000)::text, 'u1', jsonb_build_object('id', n % 5000, 'title', 'T' || n) FROM generate_series(1, ${HISTORY_ROWS}) AS n;
    ANALYZE tablegate_audit_log`)
  await createUser(app, 'admin@example.com', 'admin')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const history = await admin('GET', `/api/v1/audit_log?filter=${encodeURIComponent('resource = "tasks" AND record_key = "42"')}`)
  assert.equal(history.status, 200, JSON.stringify(history.body))
  assert.equal(history.headers['x-service-warning'], undefined)
  assert.equal(history.body.items.length, 4)
  assert.deepEqual(history.body.items.map((row: { after: { title: string } }) => row.after.title), ['T42', 'T5042', 'T10042', 'T15042'])
})

test('the audit log alone, with no migration of the application, brings the history index', async () => {
  const databaseUrl = await freshDatabase()
  const app = await buildApp({ databaseUrl, roles: ['admin', 'user'], plugins: [[auditLog, { resource: 'audit_log' }]] })
  assert.deepEqual(await indexesOf(databaseUrl), ['tablegate_audit_log_pkey', 'tablegate_audit_log_resource_record_key_idx'])
  await runSql(databaseUrl, `
    INSERT INTO tablegate_audit_log (resource, operation, record_key) SELECT 'tasks', 'create', n::text FROM generate_series(1, ${HISTORY_ROWS}) AS n;
    ANALYZE tablegate_audit_log`)
  await createUser(app, 'admin@example.com', 'admin')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const history = await admin('GET', `/api/v1/audit_log?filter=${encodeURIComponent('resource = "tasks" AND record_key = "7"')}`)
  assert.equal(history.status, 200, JSON.stringify(history.body))
  assert.deepEqual(history.body.items.map((row: { record_key: string }) => row.record_key), ['7'])
})
