// A to-many embed's children come as the text of an array of records inside the statement, yet each
// must read exactly as a get of it reads it: int8, numeric, dates, uuids and timestamps as the record
// connections give them, NaN and the infinities, json as stored, quoted, padded and enum text, and a
// child of more than 100 values (more than a function's arguments). The session's time zone is not
// UTC where a pooler leaves the server's (`npm run test:pooled`): the database here defaults to +05:45.
// The relation orders by a nullable timestamp, descending: its token carries such values and NULLs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, type CallResult } from '../helpers/app.js'

const WIDE = Array.from({ length: 100 }, (_, i) => `c${i + 1}`)
const A = '0b7f4c1e-0000-4000-8000-000000000001'
const B = '0b7f4c1e-0000-4000-8000-000000000002'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" SET timezone TO 'Asia/Kathmandu';
  CREATE TYPE mood AS ENUM ('calm', 'busy');
  CREATE TABLE boxes (id uuid PRIMARY KEY, label text NOT NULL);
  CREATE TABLE items (
    id bigserial PRIMARY KEY,
    box_id uuid NOT NULL REFERENCES boxes (id),
    at timestamptz, day date, amount numeric(14, 4), small_big int4, ratio float8, ratio4 float4, price numeric,
    count integer, flag boolean, code uuid, meta jsonb, raw json, name varchar(40), padded char(5), mood mood,
    ${WIDE.map((c) => `${c} integer`).join(', ')}
  );
  CREATE INDEX ON items (box_id, at DESC, id DESC);
  INSERT INTO boxes VALUES ('${A}', 'a'), ('${B}', 'b');
  INSERT INTO items (box_id, at, day, amount, small_big, ratio, ratio4, price, count, flag, code, meta, raw, name, padded, mood, ${WIDE.join(', ')}) VALUES
    ('${A}', '2026-01-02 03:04:05.1234+00', '2026-01-02', 1000.5, 7, 1.1, 1.1, 12.345, 3, true, '${B}', '{"b": 1, "a": [1, 2.50, {"c": null}], "big": 12345678901234567890}', '{"a": 1,  "a": 2}', 'quote " back \\ é 😀', 'ab', 'calm', ${WIDE.map((_, i) => i).join(', ')}),
    ('${A}', '2026-01-02 03:04:05.1234+00', '0044-03-15 BC', 'NaN', NULL, 'NaN', 'Infinity', NULL, NULL, false, NULL, '[]', 'null', '', 'abcde', 'busy', ${WIDE.map((_, i) => -i).join(', ')}),
    ('${A}', NULL, 'infinity', -0.0001, -2147483648, '-Infinity', -0.5, 0.1, -7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ${WIDE.map(() => 'NULL').join(', ')}),
    ('${A}', '1999-12-31 23:59:59+00', NULL, 0, 0, 0.30000000000000004, 3.4e38, 1e20, 0, true, NULL, '"text"', '[1, "2"]', 'x', 'y', 'calm', ${WIDE.map(() => '1').join(', ')}),
    ('${A}', NULL, NULL, NULL, NULL, 1e300, NULL, NULL, NULL, NULL, NULL, '{}', '{}', 'n', NULL, NULL, ${WIDE.map(() => '2').join(', ')}),
    ('${A}', '-infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'last', NULL, NULL, ${WIDE.map(() => '3').join(', ')}),
    ('${A}', '2030-06-01 12:00:00.000001+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'first', NULL, NULL, ${WIDE.map(() => '4').join(', ')}),
    ('${B}', now(), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'other box', NULL, NULL, ${WIDE.map(() => '5').join(', ')});
`)

const id = { type: 'bigint', readOnly: true, dbDefault: true } as const
const app = await buildApp({
  databaseUrl,
  resources: {
    boxes: {
      fields: { id: { type: 'uuid', readOnly: true }, label: { type: 'string' } },
      relations: { items: { resource: 'items', by: 'box_id', orderBy: 'at desc', pageSize: 3 } },
    },
    items: {
      fields: {
        id,
        box_id: { type: 'uuid', required: true, references: 'boxes' },
        at: { type: 'timestamp', sortable: true },
        day: { type: 'date' },
        amount: { type: 'decimal' },
        small_big: { type: 'bigint' },
        ratio: { type: 'number' },
        ratio4: { type: 'number' },
        price: { type: 'number' },
        count: { type: 'integer' },
        flag: { type: 'boolean' },
        code: { type: 'uuid' },
        meta: { type: 'json' },
        raw: { type: 'json' },
        name: { type: 'string' },
        padded: { type: 'string' },
        mood: { type: 'string' },
        ...Object.fromEntries(WIDE.map((c) => [c, { type: 'integer' } as const])),
      },
    },
  },
})
await createUser(app, 'admin@example.com', 'admin')
const admin = caller(app, await bearer(app, 'admin@example.com'))

function ok (response: CallResult): any {
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** Box A's items in the relation's order (at desc, NULLs first, then id desc): plain SQL. */
async function ordered (): Promise<string[]> {
  return await withClient(databaseUrl, async (client) =>
    (await client.query(`SELECT i.id::text AS id FROM items AS i WHERE box_id = $1 ORDER BY i.at DESC, i.id DESC`, [A])).rows.map((r) => r.id as string))
}

test('each embedded child is exactly what a get of it gives, whatever its types, and its token walks on', async () => {
  const box = ok(await admin('GET', `/api/v1/boxes/${A}?fields=label,items`))
  const expected = await ordered()
  const items = [...box.items.items]
  let token: string = box.items.next_page_token
  assert.equal(items.length, 3)
  while (token !== '') {
    const page = ok(await admin('GET', `/api/v1/items?page_size=3&page_token=${encodeURIComponent(token)}`))
    items.push(...page.items.map(({ permissions, ...item }: any) => item))
    token = page.next_page_token
  }
  assert.deepEqual(items.map((item) => item.id), expected)
  for (const item of items) {
    const response = await admin('GET', `/api/v1/items/${item.id as string}`)
    const { permissions, ...record } = ok(response)
    assert.deepEqual(item, record)
    assert.equal(item.etag, response.headers.etag)
  }
  const first = items.find((item) => item.name === 'quote " back \\ é 😀')
  assert.deepEqual({ ...first, etag: undefined, ...Object.fromEntries(WIDE.map((c) => [c, undefined])) }, {
    id: first.id, box_id: A, at: '2026-01-02T03:04:05.123400Z', day: '2026-01-02', amount: '1000.5000', small_big: '7', ratio: 1.1, ratio4: 1.1, price: 12.345,
    count: 3, flag: true, code: B, meta: { a: [1, 2.5, { c: null }], b: 1, big: 12345678901234567000 }, raw: { a: 2 }, name: 'quote " back \\ é 😀', padded: 'ab   ', mood: 'calm',
    etag: undefined, ...Object.fromEntries(WIDE.map((c) => [c, undefined])),
  })
  assert.equal(first.c100, 99)
  const odd = items.find((item) => item.mood === 'busy')
  assert.deepEqual([odd.day, odd.amount, odd.ratio, odd.ratio4], ['0044-03-15 BC', 'NaN', null, null])
  assert.equal(items.find((item) => item.name === 'last').at, '-infinity')
})

test('a box whose items all fit has no token; the other box\'s items are never among them', async () => {
  const boxes = ok(await admin('GET', '/api/v1/boxes?fields=label,items.name')).items
  assert.deepEqual(boxes.map((box: any) => [box.label, box.items.items.map((item: any) => item.name), box.items.next_page_token === '']), [
    ['a', ['n', null, 'first'], false],
    ['b', ['other box'], true],
  ])
})
