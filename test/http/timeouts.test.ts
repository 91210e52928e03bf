// statementTimeoutMs is a setting of the connections themselves (read and write pools): a slow
// read or write through the routes answers 504 statement-timeout, and the write leaves no trace.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);
  CREATE VIEW sleepy AS SELECT n AS id, pg_sleep(0.5)::text AS nap FROM generate_series(1, 1) AS n;
  CREATE FUNCTION nap() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$;
  CREATE TRIGGER notes_nap BEFORE INSERT ON notes FOR EACH ROW WHEN (NEW.body = 'slow') EXECUTE FUNCTION nap();
`)
const app = await buildApp({
  databaseUrl,
  statementTimeoutMs: 100,
  resources: {
    notes: { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string' } } },
    sleepy: { fields: { id: { type: 'integer', readOnly: true }, nap: { type: 'string' } } },
  },
})
await createUser(app, 'admin@example.com')
const call = caller(app, await bearer(app, 'admin@example.com'))

test('a slow read answers 504 statement-timeout', async () => {
  const response = await call('GET', '/api/v1/sleepy/1')
  assert.equal(response.status, 504)
  assert.equal(response.body.type, 'urn:service:problem:statement-timeout')
})

test('a slow write answers 504 and is not stored; a quick one is', async () => {
  const slow = await call('POST', '/api/v1/notes', { payload: { body: 'slow' } })
  assert.equal(slow.status, 504)
  assert.equal(slow.body.type, 'urn:service:problem:statement-timeout')
  assert.equal((await call('POST', '/api/v1/notes', { payload: { body: 'quick' } })).status, 201)
  const listed = await call('GET', '/api/v1/notes')
  assert.deepEqual(listed.body.items.map((n: { body: string }) => n.body), ['quick'])
})

test('a slow seek or aggregate answers 504 statement-timeout', async () => {
  for (const url of ['/api/v1/sleepy:seek?position=0', '/api/v1/sleepy:facets?field=nap', '/api/v1/sleepy:histogram?field=id']) {
    const response = await call('GET', url)
    assert.equal(response.status, 504, url)
    assert.equal(response.body.type, 'urn:service:problem:statement-timeout')
  }
})
