// Golden SQL of the filter compiler, node kind by node kind (values always bound, never in the
// text), and the order_by parser: its terms, the key appended as tiebreaker, and its issues.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModel } from '../../lib/model/build.js'
import type { FieldModel, ResourceModel } from '../../lib/model/types.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter } from '../../lib/query/filter/checker.js'
import type { CheckedFilter, QueryModel } from '../../lib/query/filter/checked.js'
import { parseOrderBy } from '../../lib/query/order-by.js'
import { queryModel as restrictedModel } from '../../lib/query/query-model.js'
import { compileFilter } from '../../lib/sql/filter.js'
import { compile, type SqlQuery } from '../../lib/sql/sql.js'

const ITEMS = buildModel('items', {
  fields: {
    id: { type: 'bigint' },
    name: { type: 'string', searchable: true },
    note: { type: 'string', searchable: true },
    count: { type: 'integer' },
    price: { type: 'decimal' },
    ratio: { type: 'number' },
    active: { type: 'boolean' },
    born: { type: 'date' },
    seen_at: { type: 'timestamp', column: 'seen' },
    ref: { type: 'uuid' },
    data: { type: 'json' },
    hidden_rank: { type: 'integer', sortable: false, filterable: false },
  },
})

function queryModel (model: ResourceModel, trigram = true): QueryModel {
  return restrictedModel(model.name, [...model.fields.values()], trigram)
}

const QUERY = queryModel(ITEMS)

function checked (text: string, model: ResourceModel = ITEMS): CheckedFilter {
  const result = checkFilter(parseFilter(text), model === ITEMS ? QUERY : queryModel(model))
  if (!result.ok) assert.fail(`${text}: ${JSON.stringify(result.issues)}`)
  return result.filter!
}

function sqlOf (text: string, model: ResourceModel = ITEMS): SqlQuery {
  return compile(compileFilter(model, checked(text, model)))
}

const field = (name: string): FieldModel => ITEMS.fields.get(name)!

test('comparisons: qualified quoted column, SQL comparator, one bound value', () => {
  const rows: Array<[string, string, unknown[]]> = [
    ['name = tea', '"items"."name" = $1', ['tea']],
    ['name != "green tea"', '"items"."name" <> $1', ['green tea']],
    ['name < m', '"items"."name" < $1', ['m']],
    ['price <= 4.50', '"items"."price" <= $1', ['4.50']],
    ['ratio > -1.5e3', '"items"."ratio" > $1', ['-1.5e3']],
    ['born >= 2026-01-31', '"items"."born" >= $1', ['2026-01-31']],
    ['seen_at > "2026-01-31T12:00:00Z"', '"items"."seen" > $1', ['2026-01-31T12:00:00Z']],
    ['ref = 123e4567-e89b-12d3-a456-426614174000', '"items"."ref" = $1', ['123e4567-e89b-12d3-a456-426614174000']],
    ['active = true', '"items"."active" = $1', [true]],
    ['active != false', '"items"."active" <> $1', [false]],
    // Without introspection the column type is unknown: a bigint value is cast to int8 all the same.
    ['count = 42', '"items"."count" = $1', ['42']],
    ['id > 9223372036854775807', '"items"."id" > $1::int8', ['9223372036854775807']],
    ['count:7', '"items"."count" = $1', ['7']],
  ]
  for (const [text, sql, values] of rows) assert.deepEqual(sqlOf(text), { text: sql, values }, text)
})

test('now() with an offset is now() plus a bound interval; date fields cast it to date', () => {
  assert.deepEqual(sqlOf('seen_at > now() - 7d'), { text: '"items"."seen" > (now() + $1::interval)', values: ['-168 hours'] })
  assert.deepEqual(sqlOf('seen_at < now() + 1h'), { text: '"items"."seen" < (now() + $1::interval)', values: ['1 hours'] })
  assert.deepEqual(sqlOf('seen_at <= now()'), { text: '"items"."seen" <= (now() + $1::interval)', values: ['0 milliseconds'] })
  assert.deepEqual(sqlOf('seen_at > now() - 0.0005s'), { text: '"items"."seen" > (now() + $1::interval)', values: ['-0.5 milliseconds'] })
  assert.deepEqual(sqlOf('born >= now() - 30d'), { text: '"items"."born" >= ((now() + $1::interval) AT TIME ZONE \'UTC\')::date', values: ['-720 hours'] })
  assert.deepEqual(sqlOf('in(seen_at, now(), "2026-01-01T00:00:00Z")'), { text: '"items"."seen" IN ((now() + $1::interval), $2)', values: ['0 milliseconds', '2026-01-01T00:00:00Z'] })
  // The longest durations still fit PostgreSQL 14's 32-bit units, and print without an exponent.
  assert.deepEqual(sqlOf('seen_at > now() - 52000w').values, ['-8736000 hours'])
})

test('null tests', () => {
  assert.deepEqual(sqlOf('name = null'), { text: '"items"."name" IS NULL', values: [] })
  assert.deepEqual(sqlOf('count != null'), { text: '"items"."count" IS NOT NULL', values: [] })
  assert.deepEqual(sqlOf('isNull(data)'), { text: '"items"."data" IS NULL', values: [] })
  assert.deepEqual(sqlOf('seen_at:*'), { text: '"items"."seen" IS NOT NULL', values: [] })
})

test('wildcards and contains: LIKE / ILIKE with escaped patterns', () => {
  assert.deepEqual(sqlOf('name = tea*'), { text: '"items"."name" LIKE $1', values: ['tea%'] })
  assert.deepEqual(sqlOf('name != "*50%_off*"'), { text: 'NOT ("items"."name" LIKE $1)', values: ['%50\\%\\_off%'] })
  assert.deepEqual(sqlOf('name:Tea'), { text: '"items"."name" ILIKE $1', values: ['%Tea%'] })
  assert.deepEqual(sqlOf('name:"back\\\\slash"'), { text: '"items"."name" ILIKE $1', values: ['%back\\\\slash%'] })
  assert.deepEqual(sqlOf('name = "star\\*"'), { text: '"items"."name" = $1', values: ['star*'] })
})

test('in(), search(), similar(), regex() and json keys', () => {
  assert.deepEqual(sqlOf('in(count, 1, 2, 3)'), { text: '"items"."count" IN ($1, $2, $3)', values: ['1', '2', '3'] })
  assert.deepEqual(sqlOf('in(name, a, "b c")'), { text: '"items"."name" IN ($1, $2)', values: ['a', 'b c'] })
  assert.deepEqual(sqlOf('search("green tea")'), { text: '("items"."name" ILIKE $1 OR "items"."note" ILIKE $2)', values: ['%green tea%', '%green tea%'] })
  assert.deepEqual(sqlOf('tea'), { text: '("items"."name" ILIKE $1 OR "items"."note" ILIKE $2)', values: ['%tea%', '%tea%'] })
  assert.deepEqual(sqlOf('similar(name, "gren tea")'), { text: '"items"."name" % $1', values: ['gren tea'] })
  assert.deepEqual(sqlOf('regex(note, "^a.*z$")'), { text: '"items"."note" ~ $1', values: ['^a.*z$'] })
  assert.deepEqual(sqlOf('data:gift'), { text: '"items"."data"::jsonb ? $1', values: ['gift'] })
})

test('json paths: the keys are one bound text[], the value a bound, typed to_jsonb', () => {
  const at = '("items"."data"::jsonb #> $1::text[])'
  assert.deepEqual(sqlOf('data.color = red'), { text: `${at} = to_jsonb($2::text)`, values: [['color'], 'red'] })
  assert.deepEqual(sqlOf('data.a.b != "x"'), { text: `${at} <> to_jsonb($2::text)`, values: [['a', 'b'], 'x'] })
  assert.deepEqual(sqlOf('data.size = 40'), { text: `${at} = to_jsonb($2::numeric)`, values: [['size'], '40'] })
  assert.deepEqual(sqlOf('data.gift = true'), { text: `${at} = to_jsonb($2::boolean)`, values: [['gift'], true] })
  // jsonb orders values of different types by type: an order comparison also requires the type.
  assert.deepEqual(sqlOf('data.size > 40'), { text: `(${at} > to_jsonb($2::numeric) AND jsonb_typeof(("items"."data"::jsonb #> $3::text[])) = $4)`, values: [['size'], '40', ['size'], 'number'] })
  assert.deepEqual(sqlOf('data.name <= m'), { text: `(${at} <= to_jsonb($2::text) AND jsonb_typeof(("items"."data"::jsonb #> $3::text[])) = $4)`, values: [['name'], 'm', ['name'], 'string'] })
  assert.deepEqual(sqlOf('data.color = "r*"'), { text: '("items"."data"::jsonb #>> $1::text[]) LIKE $2', values: [['color'], 'r%'] })
  assert.deepEqual(sqlOf('data.color != "r*"'), { text: 'NOT (("items"."data"::jsonb #>> $1::text[]) LIKE $2)', values: [['color'], 'r%'] })
  assert.deepEqual(sqlOf('data.x:*'), { text: `${at} IS NOT NULL`, values: [['x']] })
  assert.deepEqual(sqlOf('data.tags:red'), { text: `${at} ? $2`, values: [['tags'], 'red'] })
  assert.deepEqual(sqlOf('data.x = null'), { text: `(${at} IS NULL OR ("items"."data"::jsonb #> $2::text[]) = $3::jsonb)`, values: [['x'], ['x'], 'null'] })
  assert.deepEqual(sqlOf('data.x != null'), { text: `${at} <> $2::jsonb`, values: [['x'], 'null'] })
  // A key is never SQL text, whatever it holds.
  assert.deepEqual(sqlOf(`data."'; DROP TABLE items; --".x = 1`).values, [["'; DROP TABLE items; --", 'x'], '1'])
})

test('AND, OR and NOT nest with parentheses; parameters are numbered in order', () => {
  assert.deepEqual(sqlOf('name = a AND count > 1'), { text: '("items"."name" = $1 AND "items"."count" > $2)', values: ['a', '1'] })
  assert.deepEqual(sqlOf('name = a OR name = b count > 1'), {
    text: '(("items"."name" = $1 OR "items"."name" = $2) AND "items"."count" > $3)', values: ['a', 'b', '1'],
  })
  assert.deepEqual(sqlOf('NOT name = a'), { text: 'NOT "items"."name" = $1', values: ['a'] })
  assert.deepEqual(sqlOf('-(name = a OR isNull(count))'), { text: 'NOT ("items"."name" = $1 OR "items"."count" IS NULL)', values: ['a'] })
  assert.deepEqual(sqlOf('-name:tea green'), {
    text: '(NOT "items"."name" ILIKE $1 AND ("items"."name" ILIKE $2 OR "items"."note" ILIKE $3))', values: ['%tea%', '%green%', '%green%'],
  })
})

/** The model as introspection leaves it: each field knows its column's type. */
function withColumnTypes (model: ResourceModel, types: Readonly<Record<string, string>>): ResourceModel {
  const fields = new Map([...model.fields].map(([name, f]) => [name, Object.freeze({ ...f, columnType: types[name] })]))
  return { ...model, fields, key: model.key.map((k) => fields.get(k.name)!) }
}

test('values are cast where the column type could not take every value of the field type; enums match as text', () => {
  const narrow = withColumnTypes(ITEMS, { id: 'int4', name: 'enum', note: 'citext', count: 'int2', price: 'int4', ratio: 'int8', born: 'date', seen_at: 'timestamptz' })
  const rows: Array<[string, string, unknown[]]> = [
    ['id = 3000000000', '"items"."id" = $1::int8', ['3000000000']],
    ['count = 40000', '"items"."count" = $1::int4', ['40000']],
    ['in(count, 1, 2)', '"items"."count" IN ($1::int4, $2::int4)', ['1', '2']],
    ['price = 1.5', '"items"."price" = $1::numeric', ['1.5']],
    ['ratio < 2.5e3', '"items"."ratio" < $1::numeric', ['2.5e3']],
    ['name = calm', '"items"."name" = $1', ['calm']],
    ['name:alm', '"items"."name"::text ILIKE $1', ['%alm%']],
    ['name = cal*', '"items"."name"::text LIKE $1', ['cal%']],
    ['regex(name, "^c")', '"items"."name"::text ~ $1', ['^c']],
    ['similar(name, "calm")', '"items"."name"::text % $1', ['calm']],
    ['search(alm)', '("items"."name"::text ILIKE $1 OR "items"."note" ILIKE $2)', ['%alm%', '%alm%']],
    ['note:x', '"items"."note" ILIKE $1', ['%x%']],
  ]
  for (const [text, sql, values] of rows) assert.deepEqual(sqlOf(text, narrow), { text: sql, values }, text)
  const exact = withColumnTypes(ITEMS, { id: 'int8', count: 'int4', price: 'numeric', ratio: 'float8', name: 'text' })
  const plain: Array<[string, string]> = [
    ['id = 3', '"items"."id" = $1'],
    ['count = 3', '"items"."count" = $1'],
    ['price = 1.5', '"items"."price" = $1'],
    ['ratio = 1.5', '"items"."ratio" = $1'],
    ['name:x', '"items"."name" ILIKE $1'],
  ]
  for (const [text, sql] of plain) assert.equal(sqlOf(text, exact).text, sql, text)
})

test('hand-built checked filters compile the same way', () => {
  const filter: CheckedFilter = {
    kind: 'or',
    children: [
      { kind: 'compare', field: field('name'), op: '=', value: { kind: 'value', value: "x'; DROP TABLE items; --" } },
      { kind: 'not', child: { kind: 'like', field: field('note'), pattern: 'a%', caseInsensitive: false, negated: true } },
      { kind: 'has-key', field: field('data'), key: 'k"ey' },
    ],
  }
  assert.deepEqual(compile(compileFilter(ITEMS, filter)), {
    text: '("items"."name" = $1 OR NOT NOT ("items"."note" LIKE $2) OR "items"."data"::jsonb ? $3)',
    values: ["x'; DROP TABLE items; --", 'a%', 'k"ey'],
  })
})

test('the text depends on the shape only: other values, same text', () => {
  const pairs: Array<[string, string]> = [
    ['name = a AND count > 1', 'name = zzz AND count > 99999'],
    ['seen_at > now() - 7d', 'seen_at > now() + 3w'],
    ['in(count, 1, 2)', 'in(count, 5, 6)'],
    ['name:x OR regex(note, "a")', 'name:"yy yy" OR regex(note, "[b]+")'],
  ]
  for (const [a, b] of pairs) assert.equal(sqlOf(a).text, sqlOf(b).text, `${a} / ${b}`)
})

test('schema-qualified tables and odd column names are quoted', () => {
  const odd = buildModel('odd', { table: 'shop."odd items"', fields: { id: { type: 'integer' }, label: { type: 'string', column: 'la"bel' } } })
  assert.deepEqual(sqlOf('label = x AND label:y', odd), { text: '("shop"."odd items"."la""bel" = $1 AND "shop"."odd items"."la""bel" ILIKE $2)', values: ['x', '%y%'] })
})

function order (text: string, model: ResourceModel = ITEMS): string[] {
  const result = parseOrderBy(text, model, model === ITEMS ? QUERY : queryModel(model))
  if (!result.ok) assert.fail(`${text}: ${JSON.stringify(result.issues)}`)
  return result.order.map((t) => `${t.field.name} ${t.direction}`)
}

function orderIssues (text: string, model: ResourceModel = ITEMS) {
  const result = parseOrderBy(text, model, model === ITEMS ? QUERY : queryModel(model))
  if (result.ok) assert.fail(`${text} was accepted`)
  return result.issues
}

test('order_by: fields with directions, the key appended as the final tiebreaker in the last direction', () => {
  assert.deepEqual(order(''), ['id ASC'])
  assert.deepEqual(order('   '), ['id ASC'])
  assert.deepEqual(order('name'), ['name ASC', 'id ASC'])
  assert.deepEqual(order('name desc'), ['name DESC', 'id DESC'])
  assert.deepEqual(order('name asc'), ['name ASC', 'id ASC'])
  assert.deepEqual(order('name DESC'), ['name DESC', 'id DESC'])
  assert.deepEqual(order('name desc, count'), ['name DESC', 'count ASC', 'id ASC'])
  assert.deepEqual(order('price desc, name,born asc'), ['price DESC', 'name ASC', 'born ASC', 'id ASC'])
  assert.deepEqual(order('  seen_at   desc  ,  count  '), ['seen_at DESC', 'count ASC', 'id ASC'])
  // The key already in the order is not appended again, whatever its direction.
  assert.deepEqual(order('id desc'), ['id DESC'])
  assert.deepEqual(order('name, id desc'), ['name ASC', 'id DESC'])
  const lines = buildModel('lines', { key: ['region', 'number'], fields: { region: { type: 'string' }, number: { type: 'integer' }, note: { type: 'string' } } })
  assert.deepEqual(order('', lines), ['region ASC', 'number ASC'])
  assert.deepEqual(order('note desc', lines), ['note DESC', 'region DESC', 'number DESC'])
  assert.deepEqual(order('number desc', lines), ['number DESC', 'region DESC'])
  assert.deepEqual(order('number, note desc', lines), ['number ASC', 'note DESC', 'region DESC'])
  assert.deepEqual(order('number desc, region desc', lines), ['number DESC', 'region DESC'])
})

test('order_by issues: unknown fields with a hint, directions, extra words, empty terms, duplicates', () => {
  assert.deepEqual(orderIssues('nmae'), [{ code: 'unknown-field', message: "There is no field 'nmae' to order by.", hint: "Did you mean 'name'?", span: { start: 0, end: 4 } }])
  const fields = 'Fields you can order by: id, name, note, count, price, ratio, active, born, seen_at, ref.'
  assert.deepEqual(orderIssues('zzzzzz desc'), [{ code: 'unknown-field', message: "There is no field 'zzzzzz' to order by.", hint: fields, span: { start: 0, end: 6 } }])
  // json fields and fields declared not sortable are refused exactly like unknown ones.
  assert.deepEqual(orderIssues('data'), [{ code: 'unknown-field', message: "There is no field 'data' to order by.", hint: fields, span: { start: 0, end: 4 } }])
  assert.deepEqual(orderIssues('hidden_rank').map((i) => [i.code, i.message]), [['unknown-field', "There is no field 'hidden_rank' to order by."]])
  assert.deepEqual(orderIssues('name up'), [{ code: 'syntax', message: 'A direction is asc or desc.', hint: "Write 'name asc' or 'name desc' (asc when left out).", span: { start: 5, end: 7 } }])
  assert.deepEqual(orderIssues('name desc nulls'), [{ code: 'syntax', message: 'A term of order_by is a field and an optional direction.', hint: 'Separate terms with commas: a desc, b.', span: { start: 10, end: 15 } }])
  assert.deepEqual(orderIssues('name,,count'), [{ code: 'syntax', message: 'An empty term in order_by.', hint: 'Separate terms with one comma: a desc, b.', span: { start: 5, end: 5 } }])
  assert.deepEqual(orderIssues('name,').map((i) => i.span), [{ start: 5, end: 5 }])
  assert.deepEqual(orderIssues(',').map((i) => i.span), [{ start: 0, end: 0 }, { start: 1, end: 1 }])
  assert.deepEqual(orderIssues('name, count desc, name desc'), [{ code: 'duplicate-field', message: "'name' is already in order_by.", hint: "Name each field once: remove this term or the earlier 'name'.", span: { start: 18, end: 22 } }])
  assert.deepEqual(orderIssues('  name desc ,  nope').map((i) => [i.code, i.span]), [['unknown-field', { start: 15, end: 19 }]])
  // Spans of later words count leading spaces once.
  assert.deepEqual(orderIssues('count,  name  up').map((i) => [i.code, i.span]), [['syntax', { start: 14, end: 16 }]])
  assert.deepEqual(orderIssues(' name desc x').map((i) => [i.code, i.span]), [['syntax', { start: 11, end: 12 }]])
  // Case matters for names, not for directions.
  assert.equal(orderIssues('NAME')[0]!.code, 'unknown-field')
  // Every issue is collected.
  assert.deepEqual(orderIssues('nmae, name sideways, , count, count').map((i) => i.code), ['unknown-field', 'syntax', 'syntax', 'duplicate-field'])
})
