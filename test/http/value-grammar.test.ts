// One value grammar through HTTP on real PostgreSQL: the same text is accepted or refused alike as a
// body value, as a URL key and in a filter; and every text the grammar accepts, PostgreSQL stores.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, type CallResult } from '../helpers/app.js'
import { VALUE_EXPECTED } from '../../lib/model/values.js'
import type { FieldType } from '../../lib/model/types.js'
import { VALUE_CASES } from '../fixtures/value-cases.js'

const SCHEMA = `
CREATE TABLE stamps (at timestamptz PRIMARY KEY);
CREATE TABLE days (day date PRIMARY KEY);
CREATE TABLE amounts (amount numeric PRIMARY KEY);
CREATE TABLE counters (n int8 PRIMARY KEY);
CREATE TABLE slots (n int4 PRIMARY KEY);
`

/** Each resource is keyed by its one field, so one text is a body value, a key and a filter value. */
const RESOURCES = {
  stamps: { field: 'at', type: 'timestamp' },
  days: { field: 'day', type: 'date' },
  amounts: { field: 'amount', type: 'decimal' },
  counters: { field: 'n', type: 'bigint' },
  slots: { field: 'n', type: 'integer' },
} as const satisfies Record<string, { field: string, type: FieldType }>
type Resource = keyof typeof RESOURCES

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA)
const app = await buildApp({
  databaseUrl,
  resources: Object.fromEntries(Object.entries(RESOURCES).map(([name, { field, type }]) => [name, { key: field, fields: { [field]: { type, required: true } } }])),
})
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')
const call = caller(app, auth)

/** A body with the text as the field's JSON value: a string, or for integer fields the number itself. */
async function create (resource: Resource, text: string): Promise<CallResult> {
  const { field, type } = RESOURCES[resource]
  const payload = `{${JSON.stringify(field)}:${type === 'integer' ? text : JSON.stringify(text)}}`
  const response = await app.inject({ method: 'POST', url: `/api/v1/${resource}`, headers: { ...auth, 'content-type': 'application/json' }, payload })
  return { status: response.statusCode, headers: response.headers, body: response.body === '' ? undefined : JSON.parse(response.body) }
}

const filterUrl = (resource: Resource, text: string): string => `/api/v1/${resource}?filter=${encodeURIComponent(`${RESOURCES[resource].field} = "${text}"`)}`

function assertProblem (response: CallResult, status: number, slug: string, context: string): void {
  assert.equal(response.status, status, `${context}: ${JSON.stringify(response.body)}`)
  assert.equal(response.body.type, `urn:service:problem:${slug}`, context)
}

const CASES: ReadonlyArray<readonly [Resource, string, boolean]> = [
  // Out of 0001-9999 in UTC: PostgreSQL would store 10000-01-01 13:59:59.999999 and 0001-12-31 23:00 BC.
  ['stamps', '9999-12-31T23:59:59.999999-14:00', false],
  ['stamps', '0001-01-01T00:00:00+01:00', false],
  ['stamps', '2026-02-30T12:00:00Z', false],
  ['stamps', '2026-01-31T12:00:00+16:00', false],
  // Not RFC 3339: a date alone, a space for T, an offset without its colon.
  ['stamps', '2026-01-31', false],
  ['stamps', '2022-08-12 22:22:22', false],
  ['stamps', '2026-01-31T06:30:00+0530', false],
  ['stamps', '9999-12-31T23:59:59.999999+14:00', true],
  ['stamps', '0001-01-01T00:00:00-01:00', true],
  ['stamps', '2026-01-31t12:00:00z', true],
  ['stamps', '2026-01-31T06:30:00.123456789+05:30', true],
  ['days', '2026-02-30', false],
  ['days', '2025-02-29', false],
  ['days', '0000-01-01', false],
  ['days', '2024-02-29', true],
  ['days', '0001-01-01', true],
  ['amounts', '1e131071', false],
  ['amounts', '1e1001', false],
  ['amounts', '1e1000', true],
  ['amounts', '-.5', true],
  ['counters', '9223372036854775808', false],
  ['counters', '-9223372036854775809', false],
  ['counters', '9223372036854775807', true],
  ['counters', '-9223372036854775808', true],
  ['slots', '2147483648', false],
  ['slots', '-2147483649', false],
  ['slots', '2147483647', true],
]

test('a valid text is stored from a body, found by key and matched by a filter', async () => {
  for (const [resource, text] of CASES.filter(([, , valid]) => valid)) {
    const context = `${resource} ${text}`
    const created = await create(resource, text)
    assert.equal(created.status, 201, `${context}: ${JSON.stringify(created.body)}`)
    const got = await call('GET', `/api/v1/${resource}/${encodeURIComponent(text)}`)
    assert.equal(got.status, 200, `${context}: ${JSON.stringify(got.body)}`)
    assert.equal(got.body.etag, created.body.etag, context)
    const listed = await call('GET', filterUrl(resource, text))
    assert.equal(listed.status, 200, `${context}: ${JSON.stringify(listed.body)}`)
    assert.deepEqual(listed.body.items.map((item: { etag: string }) => item.etag), [created.body.etag], context)
  }
})

// Each refusal is compared whole with its fixed wording, which proves none quotes the text.
test('an invalid text is refused alike: 400 invalid-record, invalid-key and invalid-filter', async () => {
  for (const [resource, text] of CASES.filter(([, , valid]) => !valid)) {
    const { field, type } = RESOURCES[resource]
    const context = `${resource} ${text}`
    const created = await create(resource, text)
    assertProblem(created, 400, 'invalid-record', context)
    const message = `${field} must be ${VALUE_EXPECTED[type]}.`
    assert.equal(created.body.detail, message, context)
    assert.deepEqual(created.body.errors, [{ field, code: 'invalid', message }], context)

    const got = await call('GET', `/api/v1/${resource}/${encodeURIComponent(text)}`)
    assertProblem(got, 400, 'invalid-key', context)
    assert.equal(got.body.detail, `Key part 1 (${field}) is not a valid ${type}. A ${resource} key is <${field}>.`, context)

    const listed = await call('GET', filterUrl(resource, text))
    assertProblem(listed, 400, 'invalid-filter', context)
    const issue = `The value is not a valid ${type} for field '${field}'.`
    const start = field.length + 3
    assert.equal(listed.body.detail, issue, context)
    assert.deepEqual(listed.body.errors.map((e: { code: string, message: string, span: unknown }) => [e.code, e.message, e.span]),
      [['type-mismatch', issue, { start, end: start + text.length + 2 }]], context)
  }
})

const PG_TYPES: Partial<Record<FieldType, string>> = {
  integer: 'int4', bigint: 'int8', number: 'float8', decimal: 'numeric', boolean: 'bool', date: 'date', timestamp: 'timestamptz', uuid: 'uuid',
}

test('PostgreSQL stores every text the grammar accepts, and writes dates and timestamps back as ISO text', async () => {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c TimeZone=UTC' })
  await client.connect()
  const stored = async (text: string, pgType: string): Promise<string> => (await client.query<{ t: string }>(`SELECT $1::${pgType}::text AS t`, [text])).rows[0]!.t
  try {
    for (const c of VALUE_CASES.filter((v) => v.valid && PG_TYPES[v.type] !== undefined)) {
      const pgType = c.column ?? PG_TYPES[c.type]!
      const text = await stored(c.text, pgType).catch((err: Error) => assert.fail(`${c.type} ${c.text}: ${err.message}`))
      if (c.type === 'date') assert.match(text, /^\d{4}-\d\d-\d\d$/, c.text)
      if (c.type === 'timestamp') assert.match(text, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\+00$/, c.text)
    }
    // Why the range is the grammar's business: PostgreSQL takes these, but not as ISO 8601 text.
    assert.equal(await stored('9999-12-31T23:59:59.999999-14:00', 'timestamptz'), '10000-01-01 13:59:59.999999+00')
    assert.equal(await stored('0001-01-01T00:00:00+01:00', 'timestamptz'), '0001-12-31 23:00:00+00 BC')
  } finally {
    await client.end()
  }
})
