// Values the column itself would refuse (varchar/char length, numeric precision, int2/int4/int8
// range, enum labels, jsonb text) are field errors naming the field, in single and batch writes,
// before any statement; keys the column cannot hold are invalid keys. No value is echoed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, TEST_SECRET } from '../helpers/app.js'
import { createServer } from '../../lib/server.js'
import { assertValidOpenApi } from '../helpers/openapi.js'

const databaseUrl = await freshDatabase()
// A numeric scale below zero (rounding to hundreds) exists from PostgreSQL 15; on 14 `hundreds` is a plain whole number.
const negativeScale = await withClient(databaseUrl, async (c) => Number((await c.query("SELECT current_setting('server_version_num') AS v")).rows[0].v) >= 150000)
await runSql(databaseUrl, `
  CREATE TYPE mood AS ENUM ('calm', 'busy');
  CREATE DOMAIN short_code AS varchar(3);
  CREATE TABLE things (
    id smallint PRIMARY KEY,
    name varchar(5), code char(2), tag short_code,
    price numeric(5,2), hundreds ${negativeScale ? 'numeric(3,-2)' : 'numeric(5,0)'}, rate numeric(4,4),
    small smallint, count integer, ratio smallint, amount integer,
    mood mood, data jsonb, label text NOT NULL DEFAULT 'none'
  );
`)
const app = await buildApp({
  databaseUrl,
  resources: {
    things: {
      fields: {
        id: { type: 'integer' },
        name: { type: 'string' },
        code: { type: 'string' },
        tag: { type: 'string' },
        price: { type: 'decimal' },
        hundreds: { type: 'decimal' },
        rate: { type: 'number' },
        small: { type: 'integer' },
        count: { type: 'bigint' },
        ratio: { type: 'number' },
        amount: { type: 'decimal' },
        mood: { type: 'string' },
        data: { type: 'json' },
        label: { type: 'string' },
      },
    },
  },
})
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))

const REFUSED: Array<[string, unknown, string]> = [
  ['name', 'sixsix', 'name must be at most 5 characters long.'],
  ['name', '😀😀😀😀😀😀', 'name must be at most 5 characters long.'],
  ['code', 'abc', 'code must be at most 2 characters long.'],
  ['tag', 'abcd', 'tag must be at most 3 characters long.'],
  ['price', '999.995', 'price must be from -999.99 to 999.99 (the column rounds it to 2 decimal places).'],
  ['price', -1000, 'price must be from -999.99 to 999.99 (the column rounds it to 2 decimal places).'],
  ['price', '1e3', 'price must be from -999.99 to 999.99 (the column rounds it to 2 decimal places).'],
  ...negativeScale ? [['hundreds', '99950', 'hundreds must be from -99900 to 99900 (the column rounds it to a multiple of 100).'] as [string, unknown, string]] : [],
  ['rate', 1, 'rate must be from -0.9999 to 0.9999 (the column rounds it to 4 decimal places).'],
  ['small', 40000, 'small must be a whole number from -32768 to 32767.'],
  ['small', -40000, 'small must be a whole number from -32768 to 32767.'],
  ['count', '3000000000', 'count must be a whole number from -2147483648 to 2147483647.'],
  ['ratio', 2.5, 'ratio must be a whole number from -32768 to 32767.'],
  ['amount', '5.0', 'amount must be a whole number from -2147483648 to 2147483647.'],
  ['amount', '1e3', 'amount must be a whole number from -2147483648 to 2147483647.'],
  ['mood', 'angry', 'mood must be one of "calm", "busy".'],
  ['data', { note: 'a\u0000b' }, 'data must be JSON whose strings hold no NUL characters (\\u0000) or unpaired surrogates.'],
  ['data', { ['\ud800']: 1 }, 'data must be JSON whose strings hold no NUL characters (\\u0000) or unpaired surrogates.'],
]

function assertFieldError (answer: { status: number, body: any }, field: string, message: string, sent: unknown): void {
  assert.equal(answer.status, 400, `${field}: ${JSON.stringify(answer.body)}`)
  assert.equal(answer.body.type, 'urn:service:problem:invalid-record')
  assert.deepEqual(answer.body.errors, [{ field, code: 'invalid', message }])
  if ((typeof sent === 'string' || typeof sent === 'number') && String(sent).length >= 3) assert.ok(!JSON.stringify(answer.body).includes(String(sent)), `${field}: the value is echoed`)
}

async function rowCount (): Promise<number> {
  return await withClient(databaseUrl, async (c) => Number((await c.query('SELECT count(*) FROM things')).rows[0].count))
}

test('a create whose value its column cannot hold is refused by field, before any statement', async () => {
  for (const [field, value, message] of REFUSED) {
    assertFieldError(await admin('POST', '/api/v1/things', { payload: { id: 1, [field]: value } }), field, message, value)
  }
  assert.equal(await rowCount(), 0)
})

test('values at the limits are written as the database stores them', async () => {
  const created = await admin('POST', '/api/v1/things', {
    payload: {
      id: 32767, name: '😀😀😀😀😀', code: 'ab', tag: 'abc   ', price: '-999.994', hundreds: 99949, rate: 0.99994,
      small: -32768, count: 2147483647, ratio: 7, amount: '007', mood: 'busy', data: { nested: ['ok'] },
    },
  })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  assert.equal(created.body.tag, 'abc')
  assert.equal(created.body.price, '-999.99')
  assert.equal(created.body.hundreds, negativeScale ? '99900' : '99949')
  assert.equal(created.body.amount, '7')
})

test('an update is checked the same way', async () => {
  const record = await admin('GET', '/api/v1/things/32767')
  for (const [field, value, message] of REFUSED) {
    assertFieldError(await admin('PATCH', '/api/v1/things/32767', { payload: { [field]: value }, headers: { 'if-match': record.body.etag } }), field, message, value)
  }
})

test('a batch names the operation and the field', async () => {
  const answer = await admin('POST', '/api/v1:batchWrite', {
    payload: {
      ops: [
        { op: 'create', resource: 'things', data: { id: 10, name: 'fine' } },
        { op: 'create', resource: 'things', data: { id: 11, price: '12345' } },
        { op: 'create', resource: 'things', data: { id: 12, name: 'fine' } },
      ],
    },
  })
  assertFieldError(answer, 'price', 'price must be from -999.99 to 999.99 (the column rounds it to 2 decimal places).', '12345')
  assert.equal(answer.body.operation, 1)
  assert.equal(answer.body.op, 'create')
  assert.equal(answer.body.resource, 'things')
  assert.equal(await rowCount(), 1)
})

test('null for a NOT NULL column is a field error in create, update and batch; /api/meta says it is not nullable', async () => {
  const refusal = [{ field: 'label', code: 'required', message: 'label cannot be null.' }]
  const created = await admin('POST', '/api/v1/things', { payload: { id: 20, label: null } })
  assert.equal(created.status, 400)
  assert.deepEqual(created.body.errors, refusal)
  const record = await admin('GET', '/api/v1/things/32767')
  const updated = await admin('PATCH', '/api/v1/things/32767', { payload: { label: null }, headers: { 'if-match': record.body.etag } })
  assert.deepEqual([updated.status, updated.body.errors], [400, refusal])
  const batched = await admin('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'create', resource: 'things', data: { id: 21, label: null } }] } })
  assert.deepEqual([batched.status, batched.body.errors, batched.body.operation], [400, refusal, 0])
  const meta = await admin('GET', '/api/meta')
  assert.equal(meta.body.resources.things.fields.label.nullable, false)
  assert.equal(meta.body.resources.things.fields.name.nullable, true)
})

test('a key its column cannot hold is an invalid key, not a database error', async () => {
  for (const method of ['GET', 'DELETE'] as const) {
    const answer = await admin(method, '/api/v1/things/40000')
    assert.equal(answer.status, 400)
    assert.equal(answer.body.type, 'urn:service:problem:invalid-key')
    assert.equal(answer.body.detail, 'Key part 1 (id) must be a whole number from -32768 to 32767. A things key is <id>.')
  }
})

test('a default its column cannot hold fails the start, naming the path', async () => {
  const start = createServer({
    databaseUrl,
    authSecret: TEST_SECRET,
    resources: { things: { fields: { id: { type: 'integer' }, name: { type: 'string', default: 'too long' } } } },
  })
  await assert.rejects(start, /config\.resources\.things\.fields\.name\.default: must be at most 5 characters long to fit column 'name'/)
})

test('a default the field itself would refuse (its enum, its limits, its type), or an enum of another type, fails the start, naming the path', async () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['mood', { type: 'string', enum: ['calm', 'busy'], default: 'angry' }, /fields\.mood\.default: "angry" is not a value the field takes \(a string without NUL characters or unpaired surrogates, one of its enum, within its limits\)/],
    ['mood', { type: 'string', maxLength: 2, default: 'xyz' }, /fields\.mood\.default: "xyz" is not a value the field takes/],
    ['mood', { type: 'string', default: 5 }, /fields\.mood\.default: 5 is not a value the field takes/],
    ['count', { type: 'integer', enum: [1, 'a'] }, /fields\.count\.enum: "a" is not a value of type integer \(a whole number from -2147483648 to 2147483647\)/],
  ]
  for (const [name, field, refused] of cases) {
    const start = createServer({ databaseUrl, authSecret: TEST_SECRET, resources: { things: { fields: { id: { type: 'integer' }, [name]: field as never } } } })
    await assert.rejects(start, refused)
  }
})

test('the create body\'s schema in the OpenAPI document says the bounds the write checks (lengths, int2 ranges as int32), the record schema the format', async () => {
  const document = (await admin('GET', '/api/openapi.json')).body
  await assertValidOpenApi(document)
  const { properties } = document.components.schemas['things.create']
  const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] })
  assert.deepEqual(properties.name, nullable({ type: 'string', maxLength: 5 }))
  assert.deepEqual(properties.code, nullable({ type: 'string', maxLength: 2 }))
  assert.deepEqual(properties.tag, nullable({ type: 'string', maxLength: 3 }))
  assert.deepEqual(properties.small, nullable({ type: 'integer', format: 'int32', minimum: -32768, maximum: 32767 }))
  assert.deepEqual(properties.id, { type: 'integer', format: 'int32', minimum: -32768, maximum: 32767 })
  // A record says the format of what it carries, beside its field type's bounds.
  assert.deepEqual(document.components.schemas.things.properties.small, nullable({ type: 'integer', format: 'int32', minimum: -2147483648, maximum: 2147483647 }))
  // One past each bound the document gives is refused, naming the field (REFUSED above has each).
  for (const [field, value] of [['name', 'sixsix'], ['code', 'abc'], ['tag', 'abcd'], ['small', 32768], ['small', -32769]] as const) {
    const refused = await admin('POST', '/api/v1/things', { payload: { id: 9, [field]: value } })
    assert.equal(refused.status, 400, `${field} ${String(value)}`)
    assert.deepEqual(refused.body.errors.map((e: { field: string }) => e.field), [field])
  }
})
