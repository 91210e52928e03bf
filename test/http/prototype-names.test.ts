// Fields and keys named like Object.prototype's members (`constructor`, `toString`, `valueOf`,
// `hasOwnProperty`) are names like any other: filters, creates, validate and reorders take them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, filteredTitles } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE things (id serial PRIMARY KEY, title text NOT NULL, "constructor" text NOT NULL, "toString" text, "valueOf" integer, "hasOwnProperty" boolean);
  CREATE TABLE slots (name text PRIMARY KEY, position integer NOT NULL);
  INSERT INTO slots VALUES ('constructor', 1), ('toString', 2);`)
const validated: Array<Record<string, unknown>> = []
const app = await buildApp({
  databaseUrl,
  resources: {
    things: {
      fields: {
        id: { type: 'integer', readOnly: true },
        title: { type: 'string' },
        // `as const`: TypeScript types a member named like Object's own from Object, not the context.
        constructor: { type: 'string' as const, required: true },
        toString: { type: 'string' as const },
        valueOf: { type: 'integer' as const, default: 7 },
        hasOwnProperty: { type: 'boolean' as const },
      },
      validate: (record) => {
        validated.push({ ...record })
        return []
      },
    },
    slots: { key: 'name', fields: { name: { type: 'string' }, position: { type: 'integer' } } },
  },
})
await createUser(app, 'admin@example.com', 'admin')
const call = caller(app, await bearer(app, 'admin@example.com'))

test('a create without a required field named constructor names it, as for any other field', async () => {
  const answer = await call('POST', '/api/v1/things', { payload: { title: 'none' } })
  assert.equal(answer.status, 400, JSON.stringify(answer.body))
  assert.equal(answer.body.type, 'urn:service:problem:invalid-record')
  assert.deepEqual(answer.body.errors, [{ field: 'constructor', code: 'required', message: 'constructor is required.' }])
})

test('validate sees the default of a field named valueOf, not Object\'s valueOf', async () => {
  validated.length = 0
  const answer = await call('POST', '/api/v1/things', { payload: { title: 'a', constructor: 'c1' } })
  assert.equal(answer.status, 201, JSON.stringify(answer.body))
  assert.equal(answer.body.valueOf, 7)
  assert.equal(validated.length, 1)
  assert.equal(validated[0]!.valueOf, 7)
  assert.equal((await call('POST', '/api/v1/things', { payload: { title: 'b', constructor: 'c2', toString: 't', valueOf: 3, hasOwnProperty: true } })).status, 201)
})

test('filters take fields named constructor, toString, valueOf and hasOwnProperty', async () => {
  const titles = async (filter: string): Promise<string[]> => await filteredTitles(call, '/api/v1/things', filter, '&order_by=title')
  assert.deepEqual(await titles('constructor = "c1"'), ['a'])
  assert.deepEqual(await titles('toString = "t"'), ['b'])
  assert.deepEqual(await titles('valueOf > 5'), ['a'])
  assert.deepEqual(await titles('hasOwnProperty = true'), ['b'])
  assert.deepEqual(await titles('toString:*'), ['b'])
  assert.deepEqual(await titles('title = "a" OR NOT valueOf = 7'), ['a', 'b'])
})

test('a reorder keyed by the text constructor reads no etag from Object\'s prototype', async () => {
  const answer = await call('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'reorder', resource: 'slots', field: 'position', keys: ['toString', 'constructor'], etags: {} }] } })
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const listed = await call('GET', '/api/v1/slots?order_by=position')
  assert.deepEqual(listed.body.items.map((s: { name: string }) => s.name), ['toString', 'constructor'])
})
