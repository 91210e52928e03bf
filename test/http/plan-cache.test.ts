// A list's statement is prepared once per connection and, with its LIMITs written into its text,
// earns a generic plan: PostgreSQL then runs it without planning it again, whatever the filter's
// values. With `LIMIT $n` it planned every run anew (0.04-0.2 ms of the database's time each).
// Seen from the read pool's one connection, through a list guard (the public seam that gets it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

interface Prepared { statement: string, generic_plans: number, custom_plans: number }

test('a list whose filter value changes on every request runs on a generic plan after the first few', async () => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, `CREATE TABLE readings (id serial PRIMARY KEY, value integer NOT NULL);
    INSERT INTO readings (value) SELECT i % 1000 FROM generate_series(1, 100000) AS i; ANALYZE readings`)
  const app = await buildApp({
    databaseUrl,
    poolSizes: { read: 1 },
    scanGuard: { mode: 'off' },
    resources: { readings: { fields: { id: { type: 'integer', readOnly: true }, value: { type: 'integer' } } } },
  })
  let prepared: Prepared[] = []
  app.tablegate.addListGuard(async (_plan, db) => {
    prepared = (await db.query<Prepared>("SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE '%\"readings\"%'")).rows
    return undefined
  })
  await createUser(app, 'admin@example.com')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  for (let i = 1; i <= 12; i++) {
    const page = await admin('GET', `/api/v1/readings?page_size=20&filter=${encodeURIComponent(`id > ${i * 7919}`)}`)
    assert.equal(page.status, 200)
    assert.equal(page.body.items.length, 20)
  }
  // What the twelfth list's guard saw: the eleven lists before it, all one statement.
  assert.equal(prepared.length, 1, JSON.stringify(prepared))
  const [list] = prepared
  assert.match(list!.statement, / LIMIT 21$/)
  assert.equal(list!.generic_plans + list!.custom_plans, 11)
  assert.ok(list!.generic_plans >= 5, `generic plans: ${list!.generic_plans} of 11`)
})
