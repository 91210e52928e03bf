// AIP-160 (https://google.aip.dev/160) through HTTP on real PostgreSQL: each place the filter
// language once deviated from it (issue 19), and each implementation-defined point, decided and
// documented in docs/queries.md ("Differences from AIP-160"), with the rows it gives.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, filteredTitles, type CallResult } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const SCHEMA = `
CREATE TABLE items (
  id serial PRIMARY KEY, title text NOT NULL, status text, qty integer, score numeric,
  seen_at timestamptz, due_on date, meta jsonb, secret jsonb
);
INSERT INTO items (title, status, qty, score, seen_at, due_on, meta, secret) VALUES
  ('New York Giants', 'open', 5, 1.5, '2026-01-31T12:00:00.123456Z', '2026-01-31',
   '{"color": "red", "size": 42, "gift": true, "tags": ["new", "sale"], "dims": {"w": 10}, "gift card": "yes"}', '{"x": 1}'),
  ('New York Yankees', 'draft', 60, -3, '2026-01-31T12:00:00.123457Z', NULL, '{"color": "blue", "size": 8, "gift": false, "tags": []}', '{"x": 1}'),
  ('Boston Red Sox', 'locked', 20, NULL, '2026-01-31T11:00:00Z', NULL, '{"color": 40, "size": "42"}', NULL),
  ('New York Mets', 'open', NULL, 0, NULL, NULL, '{"color": null}', NULL),
  ('Star*dust', 'draft', 7, NULL, NULL, NULL, '{}', NULL),
  ('Apple', 'draft', NULL, NULL, NULL, NULL, '[]', NULL),
  ('Zebra', 'open', NULL, NULL, NULL, NULL, NULL, NULL);
`

const FIELDS: NonNullable<Config['resources']>[string]['fields'] = {
  id: { type: 'integer', readOnly: true, dbDefault: true },
  title: { type: 'string', required: true, searchable: true },
  status: { type: 'string', enum: ['draft', 'open', 'locked'] },
  qty: { type: 'integer' },
  score: { type: 'decimal' },
  seen_at: { type: 'timestamp' },
  due_on: { type: 'date' },
  meta: { type: 'json' },
}
const RESOURCES: NonNullable<Config['resources']> = {
  items: { fields: { ...FIELDS, secret: { type: 'json' } }, access: { fields: { secret: { read: ['admin'], write: ['admin'] } } } },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA)
const app = await buildApp({ databaseUrl, resources: RESOURCES })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'user@example.com', 'user')
const call = caller(app, await bearer(app, 'admin@example.com'))
const asUser = caller(app, await bearer(app, 'user@example.com'))
// The same table for a model that has no secret field at all.
const twin = await buildApp({ databaseUrl, resources: { items: { fields: FIELDS } } })
const asTwin = caller(twin, await bearer(twin, 'user@example.com'))

const GIANTS = 'New York Giants'
const YANKEES = 'New York Yankees'
const RED_SOX = 'Boston Red Sox'
const METS = 'New York Mets'
const STARDUST = 'Star*dust'
const APPLE = 'Apple'
const ZEBRA = 'Zebra'

const list = async (filter: string, via = call): Promise<CallResult> => await via('GET', `/api/v1/items?page_size=100&filter=${encodeURIComponent(filter)}`)

async function expectRows (rows: ReadonlyArray<readonly [string, readonly string[]]>): Promise<void> {
  for (const [filter, expected] of rows) assert.deepEqual(await filteredTitles(call, '/api/v1/items', filter), expected, filter)
}

/** Each filter is refused with 400 invalid-filter and exactly the issue given. */
async function expectRefused (rows: ReadonlyArray<readonly [string, { code: string, message?: string, hint?: string, span: { start: number, end: number } }]>): Promise<void> {
  for (const [filter, expected] of rows) {
    const response = await list(filter)
    assert.equal(response.status, 400, `${filter}: ${JSON.stringify(response.body)}`)
    assert.equal(response.body.type, 'urn:service:problem:invalid-filter', filter)
    assert.equal(response.body.errors.length, 1, `${filter}: ${JSON.stringify(response.body.errors)}`)
    const issue = response.body.errors[0]
    for (const [key, want] of Object.entries(expected)) assert.deepEqual(issue[key], want, `${filter}: ${key}`)
  }
}

async function sqlTitles (where: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<{ title: string }>(`SELECT title FROM items WHERE ${where} ORDER BY id`)).rows.map((r) => r.title)
  } finally {
    await client.end()
  }
}

test('a function call is a name glued to its parenthesis; with a space, AIP-160\'s sequences parse', async () => {
  await expectRows([
    // AIP-160's grammar: "New York Giants OR Yankees" is "New York (Giants OR Yankees)".
    ['New York (Giants OR Yankees)', [GIANTS, YANKEES]],
    ['New York Giants OR Yankees', [GIANTS, YANKEES]],
    ['status = open (qty < 10 OR qty > 50)', [GIANTS]],
    ['isNull (qty)', []],
    ['isNull(qty)', [METS, APPLE, ZEBRA]],
  ])
  await expectRefused([
    ['in (status, open)', { code: 'syntax', message: 'A comma outside a function call.', hint: 'A call has no space before its parenthesis: in(status, draft, open).', span: { start: 10, end: 11 } }],
  ])
})

test('a parenthesised comparand distributes its comparison over the values inside', async () => {
  await expectRows([
    ['status = (draft OR locked)', [YANKEES, RED_SOX, STARDUST, APPLE]],
    ['score >= (-2.4)', [GIANTS, METS]],
    ['qty > (10 AND 50)', [YANKEES]],
    ['title:(york giants)', [GIANTS]],
    ['NOT status = (draft OR locked)', [GIANTS, METS, ZEBRA]],
  ])
  await expectRefused([
    ['status = (open OR qty = 1)', { code: 'syntax', message: 'A comparison cannot stand inside the values of another.', span: { start: 22, end: 23 } }],
  ])
})

test('traversal into json: strings, numbers and booleans by the literal\'s form, : and :*', async () => {
  await expectRows([
    ['meta.color = "red"', [GIANTS]],
    ['meta.color = red', [GIANTS]],
    // A value that differs, JSON null included; no value there is not one.
    ['meta.color != red', [YANKEES, RED_SOX, METS]],
    ['meta.color = 40', [RED_SOX]],
    ['meta.size > 40', [GIANTS]],
    ['meta.size = "42"', [RED_SOX]],
    ['meta.size <= 42', [GIANTS, YANKEES]],
    ['meta.gift = true', [GIANTS]],
    ['meta.gift != true', [YANKEES]],
    ['meta.dims.w >= 10', [GIANTS]],
    ['meta."gift card" = yes', [GIANTS]],
    ['meta.color = r*', [GIANTS]],
    ['meta.color = (red OR blue)', [GIANTS, YANKEES]],
    ['in(meta.color, red, 40)', [GIANTS, RED_SOX]],
    // AIP-160: m.foo:* is true if m contains the key; JSON null is a value there.
    ['meta.color:*', [GIANTS, YANKEES, RED_SOX, METS]],
    ['-meta.color:*', [STARDUST, APPLE, ZEBRA]],
    ['meta.tags:sale', [GIANTS]],
    ['meta.color = null', [METS, STARDUST, APPLE, ZEBRA]],
    ['isNull(meta.color)', [METS, STARDUST, APPLE, ZEBRA]],
    ['meta.color != null', [GIANTS, YANKEES, RED_SOX]],
    // A digit key also indexes an array (AIP-160 forbids it; documented as a difference).
    ['meta.tags.0 = new', [GIANTS]],
  ])
})

test('malformed traversals, and traversal into what is not json, are refused with a span', async () => {
  await expectRefused([
    ['a.', { code: 'invalid-path', message: 'A dot in a field path must be followed by a key.', span: { start: 1, end: 2 } }],
    ['a..b', { code: 'invalid-path', span: { start: 1, end: 2 } }],
    ['meta.color. = red', { code: 'invalid-path', span: { start: 10, end: 11 } }],
    ['expr.type_map.1.type', { code: 'unknown-field', message: "There is no field 'expr' to filter on.", span: { start: 0, end: 4 } }],
    ['title.x = 1', { code: 'invalid-path', message: "Field 'title' is a string: it has no keys to traverse.", span: { start: 6, end: 7 } }],
    ['meta.color', { code: 'missing-comparison', message: 'A field path needs a comparison.', span: { start: 0, end: 10 } }],
    ['meta.gift > true', { code: 'unsupported-operator', message: 'A json boolean compares with = or != only.', span: { start: 0, end: 16 } }],
  ])
  // Text with a dot is searched for when quoted.
  await expectRows([['"New York Mets"', [METS]]])
})

test('a hidden json field is refused under traversal exactly as one that does not exist', async () => {
  assert.deepEqual((await list('secret.x = 1')).body.items?.length, 2)
  for (const filter of ['secret.x = 1', 'secret.x:*', 'secret.x', 'isNull(secret.x)', 'secret:x', 'in(secret.x, 1)']) {
    const hidden = await list(filter, asUser)
    const absent = await list(filter, asTwin)
    assert.equal(hidden.status, 400, filter)
    assert.equal(hidden.body.errors[0].code, 'unknown-field', filter)
    assert.deepEqual(hidden.body, absent.body, filter)
  }
})

test('enum values are checked as a database enum would, and ordering operators are refused', async () => {
  await expectRows([
    ['status = open', [GIANTS, METS, ZEBRA]],
    ['status:locked', [RED_SOX]],
    ['in(status, locked, draft)', [YANKEES, RED_SOX, STARDUST, APPLE]],
  ])
  const values = { code: 'type-mismatch', message: "The value is not one of the values of field 'status'.", hint: 'One of: draft, open, locked.' }
  await expectRefused([
    ['status = bogus', { ...values, span: { start: 9, end: 14 } }],
    ['status != Open', { ...values, span: { start: 10, end: 14 } }],
    ['in(status, open, closed)', { ...values, span: { start: 17, end: 23 } }],
    ['status > draft', { code: 'unsupported-operator', message: "Field 'status' is an enum: use = or !=.", hint: 'Several values: in(status, a, b).', span: { start: 0, end: 14 } }],
    ['status <= "open"', { code: 'unsupported-operator', span: { start: 0, end: 16 } }],
  ])
})

test('timestamps are RFC 3339 exactly, with any fraction; dates are dates', async () => {
  await expectRows([
    // Nine digits: PostgreSQL rounds to the microsecond, as it stores them.
    ['seen_at = 2026-01-31T12:00:00.123456789Z', [YANKEES]],
    ['seen_at = "2026-01-31T13:00:00.123456+01:00"', [GIANTS]],
    ['seen_at < 2026-01-31T07:00:00-04:30', [RED_SOX]],
    ['seen_at >= 2026-01-31t12:00:00z', [GIANTS, YANKEES]],
    ['due_on = 2026-01-31', [GIANTS]],
  ])
  const timestamp = { code: 'type-mismatch', message: "The value is not a valid timestamp for field 'seen_at'." }
  await expectRefused([
    ['seen_at > "2022-08-12 22:22:22"', { ...timestamp, span: { start: 10, end: 31 } }],
    ['seen_at > "2024-01-01"', { ...timestamp, span: { start: 10, end: 22 } }],
    ['seen_at > 2024-01-01', { ...timestamp, span: { start: 10, end: 20 } }],
    ['seen_at > "2026-01-31T12:00:00+0100"', { ...timestamp, span: { start: 10, end: 36 } }],
    ['seen_at > "2026-01-31T12:00:00"', { ...timestamp, span: { start: 10, end: 31 } }],
    ['due_on = 2026-01-31T00:00:00Z', { code: 'type-mismatch', message: "The value is not a valid date for field 'due_on'.", span: { start: 9, end: 29 } }],
  ])
  // One grammar: a body refuses what a filter refuses.
  const created = await call('POST', '/api/v1/items', { payload: { title: 'x', seen_at: '2024-01-01' } })
  assert.equal(created.status, 400)
  assert.equal(created.body.type, 'urn:service:problem:invalid-record')
})

test('decided: != and NOT leave out rows without a value, as SQL does; null tests ask for them', async () => {
  await expectRows([
    ['qty != 5', [YANKEES, RED_SOX, STARDUST]],
    ['NOT qty = 5', [YANKEES, RED_SOX, STARDUST]],
    ['-qty = 5', [YANKEES, RED_SOX, STARDUST]],
    ['qty != 5 OR qty = null', [YANKEES, RED_SOX, METS, STARDUST, APPLE, ZEBRA]],
  ])
})

test('decided: an empty json object or array has a value for :*', async () => {
  await expectRows([
    ['meta:*', [GIANTS, YANKEES, RED_SOX, METS, STARDUST, APPLE]],
    ['meta = null', [ZEBRA]],
  ])
})

test('decided: * is a wildcard anywhere in a string, \\* a star; escapes only inside quotes', async () => {
  await expectRows([
    ['title = "New*Giants"', [GIANTS]],
    ['title = "*York*"', [GIANTS, YANKEES, METS]],
    ['title = "Star\\*dust"', [STARDUST]],
    ['title = "Sta\\*"', []],
    ['title = "Sta*"', [STARDUST]],
    ["title = 'New York Mets'", [METS]],
    ['title = "New York \\"Mets\\""', []],
  ])
  await expectRefused([
    ['title = "a\\qb"', { code: 'invalid-escape', span: { start: 10, end: 12 } }],
  ])
})

test('decided: strings order by the database collation, as the column and jsonb compare them', async () => {
  await expectRows([
    ['title > "a"', await sqlTitles("title > 'a'")],
    ['title <= "New York Mets"', await sqlTitles("title <= 'New York Mets'")],
    ['meta.color > "b"', await sqlTitles("jsonb_typeof(meta -> 'color') = 'string' AND meta ->> 'color' > 'b'")],
  ])
})
