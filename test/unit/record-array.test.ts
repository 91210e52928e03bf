// A to-many's children come as PostgreSQL's text of a record[] (lib/serialize/record-array.ts):
// whatever the values hold, each field reads back as the text it was, and NULL as null, one level
// down and two (a to-many inside a to-many, whose array is a field of its parent's record).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, withClient } from '../helpers/db.js'
import { recordArray } from '../../lib/serialize/record-array.js'

const databaseUrl = await freshDatabase()

/** `array_agg(ROW(a, b, nested))` over the pairs, nested being the same pairs' own `array_agg(ROW(a, b))`. */
async function aggregated (a: ReadonlyArray<string | null>, b: ReadonlyArray<string | null>): Promise<string | null> {
  return await withClient(databaseUrl, async (client) => (await client.query<{ text: string | null }>(`
    SELECT (SELECT array_agg(ROW(t.a, t.b, (SELECT array_agg(ROW(u.a, u.b) ORDER BY u.i) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, i))) ORDER BY t.i)
            FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(a, b, i))::text AS text`, [a, b])).rows[0]!.text)
}

function readBack (text: string): Array<Array<string | null>> {
  return recordArray(text).map(([a, b, nested]) => {
    assert.equal(typeof nested, 'string')
    assert.deepEqual(recordArray(nested!), recordArray(text).map(([x, y]) => [x, y]))
    return [a!, b!]
  })
}

test('every field reads back as its text, through both layers of quoting, and NULL apart from "" and "NULL"', async () => {
  const a = ['', 'NULL', 'null', 'plain', 'a,b', '(x)', '{y}', '"', '""', '\\', '\\"', ' lead', 'trail ', 'tab\tnew\nline', 'é 😀', '()', '(,)', null, 'x']
  const b = [null, '', ',', ')', '}', '\\\\', 'q"q', '"(", ")"', 'NULL', 'a b', null, '{"k": [1, "v"]}', '2026-01-02 03:04:05+00', '-0', 't', 'f', '', ' ', null]
  const text = await aggregated(a, b)
  assert.deepEqual(readBack(text!), a.map((value, i) => [value, b[i]!]))
})

test('random texts of the characters that quote, escape or end a value read back as they were', async () => {
  const alphabet = ['"', '\\', ',', '(', ')', '{', '}', ' ', '\t', 'a', 'N', 'U', 'L', 'é', '😀']
  let seed = 45
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const value = (): string | null => random(8) === 0 ? null : Array.from({ length: random(7) }, () => alphabet[random(alphabet.length)]!).join('')
  for (let round = 0; round < 20; round++) {
    const a = Array.from({ length: 1 + random(6) }, value)
    const b = a.map(value)
    assert.deepEqual(readBack((await aggregated(a, b))!), a.map((x, i) => [x, b[i]!]), JSON.stringify([a, b]))
  }
})

test('a record of one field is an element without quotes, and a NULL field alone is ()', async () => {
  const texts = await withClient(databaseUrl, async (client) => (await client.query<{ one: string, none: string }>(
    "SELECT array_agg(ROW(x)) AS one, array_agg(ROW(NULL::text)) AS none FROM unnest(ARRAY['5', 'a b']) AS x")).rows[0]!)
  assert.equal(texts.one, '{(5),"(\\"a b\\")"}')
  assert.deepEqual(recordArray(texts.one), [['5'], ['a b']])
  assert.equal(texts.none, '{(),()}')
  assert.deepEqual(recordArray(texts.none), [[null], [null]])
})
