// Property-based tests of the filter language (fast-check).
// (a) Thousands of random and mutated filter strings through HTTP: every answer is a 200 list or a
//     400 invalid-filter problem, never a 500 nor another problem.
// (b) Generated valid filters: the compiled SQL text never holds a literal (no quote, no digit but
//     parameter numbers and casts), every literal is a bound value, and each one lists with 200.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { SHOP_RESOURCES, SHOP_SCHEMA } from '../fixtures/shop.js'
import type { Config } from '../../lib/config/schema.js'
import { buildModel } from '../../lib/model/build.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter } from '../../lib/query/filter/checker.js'
import type { QueryModel } from '../../lib/query/filter/checked.js'
import { compileFilter, offsetText } from '../../lib/sql/filter.js'
import { compile } from '../../lib/sql/sql.js'

const SCHEMA = `${SHOP_SCHEMA}
ALTER TABLE orders ADD COLUMN paid boolean;
INSERT INTO orders (title, status, total, position, placed_at, due_on, meta, code, paid) VALUES
  ('Green tea', 'open', 10.50, 1, now() - interval '1 day', '2026-01-10', '{"gift": true}', 'GT-1', true),
  ('Black tea', 'open', 25.00, 2, now() - interval '10 days', '2026-02-01', '{"rush": 1}', 'BT-2', false),
  ('Coffee beans', 'draft', 99.99, NULL, NULL, NULL, NULL, NULL, NULL),
  ('Tea pot *special*', 'locked', 5.00, 3, now() - interval '3 hours', '2026-01-31', '{}', 'TP-3', true);
`

const orders = SHOP_RESOURCES.orders!
const ORDERS: NonNullable<Config['resources']>[string] = {
  ...orders,
  fields: { ...orders.fields, title: { ...orders.fields.title!, searchable: true }, code: { type: 'string', searchable: true }, paid: { type: 'boolean' } },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA)
const app = await buildApp({ databaseUrl, resources: { ...SHOP_RESOURCES, orders: ORDERS } })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

/** Percent-encodes every UTF-8 byte, so any string (lone surrogates included) reaches the server. */
function encode (text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => '%' + b.toString(16).padStart(2, '0')).join('')
}

const VALID = [
  'status = open',
  'status != "open" AND total > 10',
  "title = 'Green tea' OR title = \"Black tea\"",
  'total >= 10.5 total < 1e3',
  'position <= -3 OR position = 2147483647',
  'id = 9223372036854775807',
  'paid = true AND NOT paid = false',
  'due_on >= 2026-01-31',
  'placed_at > "2026-01-31T12:00:00.5+05:30"',
  'placed_at > now() - 7d AND placed_at < now() + 1h',
  'placed_at > now() -90s',
  'due_on < now() - 2w',
  'title = Tea*',
  'title = "*\\*special\\*"',
  'title:tea',
  'title:"pot *"',
  'code:*',
  '-code:*',
  'meta:gift',
  'meta = null',
  'total != null',
  'isNull(position)',
  'in(status, draft, locked)',
  'in(position, 1, 3)',
  'search("tea")',
  'green tea',
  '"black tea" -pot',
  'similar(title, "Gren tea")',
  'regex(title, "^[GB].*tea$")',
  'regex(code, "^[A-Z]{2}-[0-9]\\\\d?$")',
  'regex(title, "[[:alpha:]]+\\\\y")',
  '(status = draft OR status = locked) AND (total < 50 OR total = null)',
  'NOT (status = open OR isNull(meta))',
  'title = "say \\"hi\\" \\n\\t"',
  "title = 'it\\'s'",
  'status = (draft OR locked) total >= (-2.4)',
  'New York (Giants OR Yankees)',
  'status = open (position < 10 OR position > 50)',
  'placed_at > 2026-01-31T12:00:00.123456789Z AND placed_at < 2026-02-01T00:00:00+01:00',
  'meta.gift = true OR meta.rush > 0 OR meta."gift card" = "yes" OR meta.tags:red OR meta.rush:*',
  'meta.a.b = null AND isNull(meta.c) AND in(meta.d, 1, two, true)',
]

/** Characters and fragments of the language, weighted towards the ones that break things. */
const PIECES = [
  ' ', ' ', '(', ')', '"', "'", '\\', '*', ':', '=', '!', '!=', '<', '>', '<=', '>=', ',', '-', '+', '.', '%', '_', '{', '}', '[', ']',
  '^', '$', '|', '?', 'AND', 'OR', 'NOT', 'and', 'title', 'total', 'status', 'position', 'placed_at', 'due_on', 'meta', 'paid', 'id',
  'version', 'deleted_at', 'nope', 'now()', 'now', '7d', '1.5w', 'ms', 'in(', 'search(', 'similar(', 'regex(', 'isNull(',
  'null', 'true', 'false', '0', '9', '-5', '1e400', '1e-400', '99999999999', '2026-02-30', '2026-01-31', 'T12:00', 'Z', '+16:00',
  'meta.', 'meta.gift', '..', '"a.b"', '(draft OR open)', '2026-01-31T12:00:00Z', '+01:00',
  '\0', '\n', '\t', '\u00e9', '\u{1F600}', '\uD800', '[[:', ':]]', '(?<', '\\\\1', '\\\\q', '{256}', '{1,', '\\*', '\\"',
]

const piece = fc.constantFrom(...PIECES)
const char = fc.oneof(piece, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.string({ minLength: 1, maxLength: 1 }))

type Mutation = { kind: 'insert' | 'replace' | 'delete', at: number, text: string, length: number }
const mutation: fc.Arbitrary<Mutation> = fc.record({ kind: fc.constantFrom('insert', 'replace', 'delete'), at: fc.nat(), text: char, length: fc.integer({ min: 1, max: 3 }) })

function mutate (base: string, mutations: readonly Mutation[]): string {
  let text = base
  for (const m of mutations) {
    const at = text.length === 0 ? 0 : m.at % (text.length + 1)
    if (m.kind === 'insert') text = text.slice(0, at) + m.text + text.slice(at)
    else if (m.kind === 'replace') text = text.slice(0, at) + m.text + text.slice(at + m.length)
    else text = text.slice(0, at) + text.slice(at + m.length)
  }
  return text
}

const mutated = fc.tuple(fc.constantFrom(...VALID), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([base, ms]) => mutate(base, ms))
const spliced = fc.tuple(fc.constantFrom(...VALID), fc.constantFrom(...VALID), fc.nat(), fc.nat()).map(([a, b, i, j]) => a.slice(0, i % (a.length + 1)) + b.slice(j % (b.length + 1)))
const assembled = fc.array(piece, { maxLength: 25 }).map((parts) => parts.join(''))
const regexes = fc.array(fc.constantFrom('a', 'Z', '0', '9', '-', ']', '[', '^', ':', '.', '=', '\\\\', '(', ')', '{', '}', '|', '*', '+', '?', '$', ',', '<', '!', 'x', 'u', 'c', 'd', 'y', 'm', 'q', '[:alpha:]', '(?', '1', '2', '5', '6'), { maxLength: 14 })
  .map((parts) => `regex(title, "${parts.join('')}")`)
const anything = fc.oneof(
  { arbitrary: mutated, weight: 5 },
  { arbitrary: spliced, weight: 1 },
  { arbitrary: assembled, weight: 2 },
  { arbitrary: regexes, weight: 2 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
)

async function answer (filter: string, via: 'GET' | 'POST'): Promise<{ status: number, type: string | undefined, contentType: string, body: string }> {
  const response = via === 'GET'
    ? await app.inject({ method: 'GET', url: `/api/v1/orders?page_size=5&filter=${encode(filter)}`, headers: auth })
    : await app.inject({ method: 'POST', url: '/api/v1/orders:search', headers: auth, payload: { filter, page_size: 5 } })
  const body = response.body
  const parsed = JSON.parse(body) as { type?: string }
  return { status: response.statusCode, type: parsed.type, contentType: String(response.headers['content-type']), body }
}

function assertListOrFilterProblem (filter: string, result: Awaited<ReturnType<typeof answer>>): void {
  if (result.status === 200) return
  assert.equal(result.status, 400, `${JSON.stringify(filter)} → ${result.status} ${result.body}`)
  assert.match(result.contentType, /^application\/problem\+json/, JSON.stringify(filter))
  assert.equal(result.type, 'urn:service:problem:invalid-filter', `${JSON.stringify(filter)} → ${result.body}`)
}

test('the corpus of valid filters lists with 200', async () => {
  for (const filter of VALID) {
    const result = await answer(filter, 'GET')
    assert.equal(result.status, 200, `${filter} → ${result.body}`)
  }
})

test('random and mutated filters through GET: 200 or 400 invalid-filter, never anything else', async () => {
  const statuses = new Map<number, number>()
  await fc.assert(fc.asyncProperty(anything, async (filter) => {
    const result = await answer(filter, 'GET')
    statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1)
    assertListOrFilterProblem(filter, result)
  }), { numRuns: 2500 })
  // Both outcomes are well represented, so the run exercised the lists as well as the refusals.
  assert.ok((statuses.get(200) ?? 0) > 250, JSON.stringify([...statuses]))
  assert.ok((statuses.get(400) ?? 0) > 250, JSON.stringify([...statuses]))
})

test('random and mutated filters through POST :search bodies: the same rule', async () => {
  await fc.assert(fc.asyncProperty(anything, async (filter) => {
    assertListOrFilterProblem(filter, await answer(filter, 'POST'))
  }), { numRuns: 500 })
})

// (b) Valid filters built from random choices, with distinctive literals.

const MODEL = buildModel('orders', ORDERS)
const QUERY: QueryModel = {
  resource: 'orders',
  cacheKey: 'orders',
  readable: new Map([...MODEL.fields.values()].map((f) => [f.name, f])),
  filterable: new Map([...MODEL.fields.values()].filter((f) => f.filterable && f.name !== 'version').map((f) => [f.name, f])),
  sortable: new Map(),
  searchable: [...MODEL.fields.values()].filter((f) => f.searchable),
  trigram: true,
}

/** A generated filter: its text, and for each literal in it the bound value it must become. */
interface Generated { readonly text: string, readonly literals: ReadonlyArray<{ readonly literal: string, readonly value: string | boolean }> }

const word = fc.string({ unit: fc.constantFrom(...'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'), minLength: 8, maxLength: 14 })
/** Text with SQL's own punctuation in it; never % _ \ or * (so contains-patterns keep it verbatim). */
const nasty = fc.tuple(word, fc.constantFrom("'; DROP TABLE orders; --", "' OR '1'='1", '"quoted"', ' $1 ', ') OR (1=1', "O'Brien")).map(([w, s]) => w + s)
const quote = (s: string): string => `"${s.replace(/["\\]/g, (c) => '\\' + c)}"`
const unusualInt = fc.integer({ min: 10_000, max: 2_147_483_647 }).chain((n) => fc.constantFrom(String(n), String(-n)))
const unusualDecimal = fc.tuple(fc.integer({ min: 10_000, max: 99_999_999 }), fc.integer({ min: 1, max: 9999 }), fc.boolean()).map(([i, f, neg]) => `${neg ? '-' : ''}${i}.${String(f).padStart(4, '0')}7`)
const bigId = fc.bigInt({ min: 10_000n, max: 9_223_372_036_854_775_807n }).map(String)
const day = fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
const dateText = day.map((d) => d.toISOString().slice(0, 10))
const instant = fc.tuple(day, fc.integer({ min: 10, max: 99_999 }), fc.constantFrom('Z', '+05:30', '-11:00')).map(([d, micro, zone]) => `${d.toISOString().slice(0, 19)}.${micro}${zone}`)
const comparator = fc.constantFrom('=', '!=', '<', '<=', '>', '>=')
const label = fc.constantFrom('draft', 'open', 'locked')
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

const restriction: fc.Arbitrary<Generated> = fc.oneof(
  fc.tuple(fc.constantFrom('title', 'code'), comparator, fc.oneof(word, nasty)).map(([f, op, s]) => ({ text: `${f} ${op} ${quote(s)}`, literals: [{ literal: s, value: s }] })),
  // status has a config enum: only its values, and only = and !=.
  fc.tuple(fc.constantFrom('=', '!=', ':'), label).map(([op, s]) => ({ text: `status ${op} ${s}`, literals: [{ literal: s, value: s }] })),
  fc.array(label, { minLength: 1, maxLength: 3 }).map((ss) => ({ text: `status = (${ss.join(' OR ')})`, literals: ss.map((s) => ({ literal: s, value: s })) })),
  fc.tuple(fc.constantFrom('title', 'code'), fc.constantFrom('=', '!='), word).map(([f, op, s]) => ({ text: `${f} ${op} "*${s}*"`, literals: [{ literal: s, value: `%${s}%` }] })),
  fc.tuple(fc.constantFrom('title', 'code'), fc.oneof(word, nasty)).map(([f, s]) => ({ text: `${f}:${quote(s)}`, literals: [{ literal: s, value: `%${s}%` }] })),
  fc.tuple(comparator, unusualDecimal).map(([op, n]) => ({ text: `total ${op} ${n}`, literals: [{ literal: n, value: n }] })),
  fc.tuple(comparator, unusualInt).map(([op, n]) => ({ text: `position ${op} ${n}`, literals: [{ literal: n, value: n }] })),
  fc.tuple(comparator, bigId).map(([op, n]) => ({ text: `id ${op} ${n}`, literals: [{ literal: n, value: n }] })),
  fc.tuple(comparator, dateText).map(([op, d]) => ({ text: `due_on ${op} ${d}`, literals: [{ literal: d, value: d }] })),
  fc.tuple(comparator, instant).map(([op, t]) => ({ text: `placed_at ${op} ${quote(t)}`, literals: [{ literal: t, value: t }] })),
  fc.tuple(comparator, fc.constantFrom('+', '-'), fc.integer({ min: 10_000, max: 50_000 }), fc.constantFrom('ms', 's', 'm', 'h', 'd') as fc.Arbitrary<keyof typeof UNIT_MS>)
    .map(([op, sign, n, unit]) => ({ text: `placed_at ${op} now() ${sign} ${n}${unit}`, literals: [{ literal: `${n}${unit}`, value: offsetText(sign === '-' ? -n * UNIT_MS[unit] : n * UNIT_MS[unit]) }] })),
  fc.boolean().map((b) => ({ text: `paid = ${b}`, literals: [{ literal: String(b), value: b }] })),
  fc.array(unusualInt, { minLength: 1, maxLength: 4 }).map((ns) => ({ text: `in(position, ${ns.join(', ')})`, literals: ns.map((n) => ({ literal: n, value: n })) })),
  fc.array(fc.oneof(word, nasty), { minLength: 1, maxLength: 3 }).map((ss) => ({ text: `in(code, ${ss.map(quote).join(', ')})`, literals: ss.map((s) => ({ literal: s, value: s })) })),
  fc.array(label, { minLength: 1, maxLength: 3 }).map((ss) => ({ text: `in(status, ${ss.join(', ')})`, literals: ss.map((s) => ({ literal: s, value: s })) })),
  // Traversal into meta: keys and values are both bound, whatever they hold.
  fc.tuple(fc.oneof(word, nasty), comparator, fc.oneof(word, nasty)).map(([k, op, s]) => ({ text: `meta.${quote(k)} ${op} ${quote(s)}`, literals: [{ literal: k, value: k }, { literal: s, value: s }] })),
  fc.tuple(word, word, comparator, unusualDecimal).map(([a, b, op, n]) => ({ text: `meta.${a}.${b} ${op} ${n}`, literals: [{ literal: a, value: a }, { literal: b, value: b }, { literal: n, value: n }] })),
  fc.tuple(word, fc.constantFrom('=', '!='), fc.boolean()).map(([k, op, b]) => ({ text: `meta.${k} ${op} ${b}`, literals: [{ literal: k, value: k }, { literal: String(b), value: b }] })),
  fc.tuple(word, fc.oneof(word, nasty)).map(([k, s]) => ({ text: `meta.${k}:${quote(s)}`, literals: [{ literal: k, value: k }, { literal: s, value: s }] })),
  fc.tuple(fc.oneof(word, nasty), fc.constantFrom(':*', ' = null', ' != null')).map(([k, test]) => ({ text: `meta.${quote(k)}${test}`, literals: [{ literal: k, value: k }] })),
  fc.oneof(word, nasty).map((s) => ({ text: `search(${quote(s)})`, literals: [{ literal: s, value: `%${s}%` }] })),
  word.map((s) => ({ text: s, literals: [{ literal: s, value: `%${s}%` }] })),
  fc.tuple(fc.constantFrom('title', 'code'), fc.oneof(word, nasty)).map(([f, s]) => ({ text: `similar(${f}, ${quote(s)})`, literals: [{ literal: s, value: s }] })),
  fc.tuple(fc.constantFrom('title', 'code'), word).map(([f, s]) => ({ text: `regex(${f}, "^${s}[0-9]+$")`, literals: [{ literal: s, value: `^${s}[0-9]+$` }] })),
  word.map((s) => ({ text: `meta:${s}`, literals: [{ literal: s, value: s }] })),
  fc.constantFrom('isNull(total)', 'meta = null', 'code != null', 'code:*', 'isNull(placed_at)').map((text) => ({ text, literals: [] })),
)

const filterTree: fc.Arbitrary<Generated> = fc.letrec<{ node: Generated }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    restriction,
    fc.tuple(tie('node'), fc.constantFrom(' AND ', ' OR ', ' '), tie('node')).map(([a, join, b]) => ({ text: `(${a.text})${join}(${b.text})`, literals: [...a.literals, ...b.literals] })),
    fc.tuple(fc.constantFrom('NOT ', '-'), tie('node')).map(([not, a]) => ({ text: `${not}(${a.text})`, literals: a.literals })),
  ),
})).node

function compiled (text: string) {
  const checked = checkFilter(parseFilter(text), QUERY)
  if (!checked.ok) assert.fail(`${text}: ${JSON.stringify(checked.issues)}`)
  return compile(compileFilter(MODEL, checked.filter!))
}

test('valid generated filters: no literal in the SQL text, every literal bound as a value', () => {
  fc.assert(fc.property(filterTree, ({ text, literals }) => {
    const sql = compiled(text)
    // No string literal can be in the text at all, and no digit outside $n parameters and casts.
    assert.equal(sql.text.includes("'"), false, sql.text)
    assert.doesNotMatch(sql.text.replace(/"[^"]*"/g, '').replace(/\$[0-9]+/g, '').replace(/::int[48]/g, ''), /[0-9']/, sql.text)
    // A json path is bound as one text[] value: its keys are among the values too.
    const bound = sql.values.flat()
    for (const { literal, value } of literals) {
      assert.equal(sql.text.includes(literal), false, `${literal} in ${sql.text}`)
      assert.ok(bound.includes(value), `${JSON.stringify(value)} not among ${JSON.stringify(sql.values)}`)
    }
    assert.equal(sql.values.length, (sql.text.match(/\$[0-9]+/g) ?? []).length)
  }), { numRuns: 3000 })
})

test('valid generated filters list with 200 through HTTP', async () => {
  await fc.assert(fc.asyncProperty(filterTree, async ({ text }) => {
    const result = await answer(text, 'GET')
    assert.equal(result.status, 200, `${text} → ${result.body}`)
  }), { numRuns: 300 })
})
