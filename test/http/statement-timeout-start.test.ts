// A start's own statements (catalog reads, keys, the auth store) are no request: until the app is
// ready they run under a start's timeout, not the requests' `statementTimeoutMs`, so a tight one
// cannot fail a start on a busy machine; from then on every connection, opened before or after,
// takes the requests' (lib/db/pool.ts, armStatementTimeout).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { armStatementTimeout, createPool } from '../../lib/db/pool.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE VIEW sleepy AS SELECT n AS id, pg_sleep(0.5)::text AS nap FROM generate_series(1, 1) AS n')

test('a pool runs statements past the request timeout until armed; then its connections, old and new, stop at it', async () => {
  const pool = createPool(databaseUrl, { max: 2, statementTimeoutMs: 50, startupTimeoutMs: 60_000 })
  try {
    const opened = await Promise.all([pool.connect(), pool.connect()])
    for (const client of opened) await client.query('SELECT pg_sleep(0.2)')
    for (const client of opened) client.release()
    await armStatementTimeout(pool)
    const again = await Promise.all([pool.connect(), pool.connect()])
    assert.deepEqual(new Set(again), new Set(opened))
    for (const client of again) await assert.rejects(client.query('SELECT pg_sleep(0.2)'), /canceling statement due to statement timeout/)
    for (const client of again) client.release(true)
    const fresh = await pool.connect()
    assert.ok(!opened.includes(fresh))
    assert.equal((await fresh.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]!.statement_timeout, '50ms')
    await assert.rejects(fresh.query('SELECT pg_sleep(0.2)'), /canceling statement due to statement timeout/)
    fresh.release()
  } finally {
    await pool.end()
  }
})

test('an app whose statement timeout is 1 ms starts, and its requests\' statements stop at 1 ms (504 statement-timeout)', async () => {
  const resources = { sleepy: { fields: { id: { type: 'integer', readOnly: true }, nap: { type: 'string' } } } } as const
  // The user and their token from an app of the default timeout: the token holds at the other.
  const roomy = await buildApp({ databaseUrl, resources })
  await createUser(roomy, 'admin@example.com')
  const auth = await bearer(roomy, 'admin@example.com')
  const tight = await buildApp({ databaseUrl, statementTimeoutMs: 1, resources })
  const answer = await caller(tight, auth)('GET', '/api/v1/sleepy/1')
  assert.equal(answer.status, 504, JSON.stringify(answer.body))
  assert.equal(answer.body.type, 'urn:service:problem:statement-timeout')
})
