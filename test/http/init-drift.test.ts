// `tablegate check`'s third kind of drift from the library (lib/init/drift.ts): a constraint that
// contradicts a field option, one line each, for what a start does not refuse; and none for the
// config `init` writes of the same table. The CLI's lines are in init-cli.test.ts.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { databasePool, freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { driftLines } from '../../lib/init/drift.js'
import { initConfig } from '../../lib/init/index.js'
import { buildModels } from '../../lib/model/build.js'
import type { Config } from '../../lib/config/schema.js'
import { DRIFT_CONFIG, DRIFT_LINES, DRIFT_SCHEMA } from '../fixtures/init-drift.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, DRIFT_SCHEMA)
const pool = databasePool(databaseUrl, 1)
pool.on('error', () => {})

const drift = async (config: Config): Promise<string[]> => await driftLines(pool, buildModels(config.resources!).values(), config.resources!)

test('each option a constraint contradicts is a line naming the option, the column and what refuses it; a start accepts the config', async () => {
  assert.deepEqual(await drift(DRIFT_CONFIG), DRIFT_LINES)
  // The lines are warnings: the start serves the config, and the database refuses what they name.
  const app = await buildApp({ ...DRIFT_CONFIG, databaseUrl })
  await createUser(app, 'admin@example.com', 'admin')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const created = await admin('POST', '/api/v1/things', { payload: { id: 1, status: 'open', label: 'a', note: 'n' } })
  assert.equal(created.status, 400, JSON.stringify(created.body))
  assert.equal(created.body.type, 'urn:service:problem:invalid-record')
  // PostgreSQL names the column, and the caller reads its field: the answer names it.
  const lockedMessage = 'locked is read-only, and the table holds no record without it: its column needs a default.'
  assert.equal(created.body.detail, lockedMessage)
  assert.deepEqual(created.body.errors, [{ field: 'locked', code: 'required', message: lockedMessage }])
  const gone = await admin('POST', '/api/v1/things', { payload: { id: 1, status: 'gone', label: 'a', note: 'n' } })
  assert.equal(gone.status, 400, JSON.stringify(gone.body))
})

test('the config init writes of the same table contradicts none of its constraints', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tablegate-init-drift-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'things.mjs')
  writeFileSync(file, (await initConfig(pool)).replace("from 'tablegate'", `from '${pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href}'`))
  const config = (await import(pathToFileURL(file).href)).default as Config
  assert.deepEqual(await drift(config), [])
})

test('a resource no one may create is not held to NOT NULL columns; nullable still is', async () => {
  const { label, locked, note } = DRIFT_CONFIG.resources.things.fields
  const readable: Config = { resources: { things: { access: { read: ['admin'], create: false }, fields: { id: { type: 'integer' }, label, locked, note } } } }
  assert.deepEqual((await drift(readable)).filter((line) => line.includes('.fields.')), [
    "drift: config.resources.things.fields.note.nullable: column 'note' of table things is NOT NULL, so null is refused whatever the option says",
  ])
})

test('a NOT NULL column without a default that no field serves is a drift line saying creates fail, and a create names it; a hidden field is not named', async () => {
  await runSql(databaseUrl, 'CREATE TABLE comments (id serial PRIMARY KEY, body text NOT NULL, secret text)')
  const config: Config = {
    roles: ['admin', 'user'],
    resources: {
      comments: {
        fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string', required: true }, secret: { type: 'string' } },
        access: { read: true, create: true, fields: { secret: { read: ['admin'], write: ['admin'] } } },
      },
    },
  }
  assert.deepEqual(await drift(config), [])
  await runSql(databaseUrl, 'ALTER TABLE comments ADD COLUMN edited boolean NOT NULL')
  assert.deepEqual(await drift(config), [
    "drift: config.resources.comments: column 'edited' (boolean) of table comments is served by no field, and it is NOT NULL without a default, so every create fails: serve it as a required field, or give the column a default",
  ])
  assert.deepEqual(await drift({ resources: { comments: { ...config.resources!.comments!, access: { read: true, create: false } } } }), [
    "drift: config.resources.comments: column 'edited' (boolean) of table comments is served by no field",
  ])
  const app = await buildApp({ ...config, databaseUrl })
  // The admin was made by the first test, on the same database.
  await createUser(app, 'user@example.com', 'user')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const user = caller(app, await bearer(app, 'user@example.com'))
  const unserved = await admin('POST', '/api/v1/comments', { payload: { body: 'b' } })
  assert.equal(unserved.status, 400, JSON.stringify(unserved.body))
  assert.equal(unserved.body.type, 'urn:service:problem:invalid-record')
  assert.equal(unserved.body.detail, "The table requires a value in its column 'edited', which no field serves: no record can be created until the config serves it or the column has a default.")
  assert.equal(unserved.body.errors, undefined)

  // PostgreSQL checks columns in order: secret, before edited, is the one it names.
  await runSql(databaseUrl, 'ALTER TABLE comments ALTER COLUMN secret SET NOT NULL')
  const named = await admin('POST', '/api/v1/comments', { payload: { body: 'b' } })
  assert.equal(named.status, 400, JSON.stringify(named.body))
  assert.deepEqual(named.body.errors, [{ field: 'secret', code: 'required', message: 'secret is required: the table holds no record without it.' }])
  const hidden = await user('POST', '/api/v1/comments', { payload: { body: 'b' } })
  assert.equal(hidden.status, 400, JSON.stringify(hidden.body))
  assert.equal(hidden.body.type, 'urn:service:problem:invalid-record')
  assert.equal(hidden.body.detail, 'A value the table requires is missing, and it is not one you can send.')
  assert.equal(hidden.body.errors, undefined)
  assert.doesNotMatch(JSON.stringify(hidden.body), /secret/)
})
