// :histogram over the whole range a column can hold: floats from -1.7e308 to 1.7e308 are bucketed
// (their width would overflow float8), and NaN and ±Infinity, which no axis has a place for, are
// counted apart with the nulls, in float8 and numeric columns alike.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE measures (id serial PRIMARY KEY, x float8, d numeric);
  INSERT INTO measures (x, d) VALUES
    (1.7976931348623157e308, 1), (-1.7976931348623157e308, 3), (0, 'NaN'), ('NaN', 'Infinity'), ('Infinity', NULL), (NULL, '-Infinity');
  CREATE TABLE spread (id serial PRIMARY KEY, x float8);
  INSERT INTO spread (x) VALUES (-1e300), (-0.5), (1e300);
`)
const app = await buildApp({
  databaseUrl,
  resources: {
    measures: { fields: { id: { type: 'integer', readOnly: true }, x: { type: 'number' }, d: { type: 'decimal' } } },
    spread: { fields: { id: { type: 'integer', readOnly: true }, x: { type: 'number' } } },
  },
})
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))

test('floats across their whole range are bucketed, not refused as a filter error', async () => {
  const answer = await admin('GET', '/api/v1/measures:histogram?field=x&buckets=2')
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.deepEqual(answer.body, {
    field: 'x',
    min: -1.7976931348623157e308,
    max: 1.7976931348623157e308,
    buckets: [{ start: -1.7976931348623157e308, end: 0, count: 1 }, { start: 0, end: 1.7976931348623157e308, count: 2 }],
    nulls: 3,
  })
})

test('NaN and ±Infinity in a numeric column are counted with the nulls', async () => {
  const answer = await admin('GET', '/api/v1/measures:histogram?field=d&buckets=2')
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.deepEqual(answer.body, { field: 'd', min: '1', max: '3', buckets: [{ start: '1', end: '2', count: 1 }, { start: '2', end: '3', count: 1 }], nulls: 4 })
})

test('a value is counted in the bucket whose edges hold it, though floats cannot tell -0.5 from 0 at 1e300', async () => {
  const answer = await admin('GET', '/api/v1/spread:histogram?field=x&buckets=2')
  assert.deepEqual(answer.body.buckets, [{ start: -1e300, end: 0, count: 2 }, { start: 0, end: 1e300, count: 1 }])
})
