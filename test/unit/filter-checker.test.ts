// The filter checker against a hand-built restricted model: every function, the literal typing of
// every field type, null, wildcards and `:`, and the rule that an unknown, a non-filterable and a
// hidden field are refused with exactly the same issue.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModel } from '../../lib/model/build.js'
import type { FieldModel, ResourceModel } from '../../lib/model/types.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter, FUNCTIONS, MAX_VALUES } from '../../lib/query/filter/checker.js'
import { queryModel } from '../../lib/query/query-model.js'
import type { CheckedFilter, QueryModel, TypedValue } from '../../lib/query/filter/checked.js'
import type { QueryIssue } from '../../lib/query/span.js'

const ITEMS = buildModel('items', {
  fields: {
    id: { type: 'integer' },
    name: { type: 'string', searchable: true },
    note: { type: 'string', searchable: true },
    count: { type: 'integer' },
    big: { type: 'bigint' },
    price: { type: 'decimal' },
    ratio: { type: 'number' },
    active: { type: 'boolean' },
    born: { type: 'date' },
    seen_at: { type: 'timestamp' },
    ref: { type: 'uuid' },
    data: { type: 'json' },
    secret: { type: 'string' },
  },
})

/** The caller's restricted model, built as the resources plugin builds it: from readable fields. */
function restricted (model: ResourceModel, readable: readonly FieldModel[], trigram = true): QueryModel {
  return queryModel(model.name, readable, trigram)
}

const ALL = [...ITEMS.fields.values()]
const MODEL = restricted(ITEMS, ALL)

function check (text: string, model: QueryModel = MODEL) {
  return checkFilter(parseFilter(text), model)
}

function typed (v: TypedValue): string {
  return v.kind === 'now' ? `now${v.offsetMs === 0 ? '' : v.offsetMs > 0 ? `+${v.offsetMs}` : v.offsetMs}` : JSON.stringify(v.value)
}

/** A checked filter as an S-expression. */
function show (f: CheckedFilter): string {
  switch (f.kind) {
    case 'and':
    case 'or': return `(${f.kind} ${f.children.map(show).join(' ')})`
    case 'not': return `(not ${show(f.child)})`
    case 'compare': return `(${f.op} ${f.field.name} ${typed(f.value)})`
    case 'null': return `(${f.negated ? 'not-null' : 'null'} ${f.field.name})`
    case 'like': return `(${f.negated ? 'not-' : ''}${f.caseInsensitive ? 'ilike' : 'like'} ${f.field.name} ${JSON.stringify(f.pattern)})`
    case 'in': return `(in ${f.field.name} ${f.values.map(typed).join(' ')})`
    case 'search': return `(search ${f.fields.map((x) => x.name).join(',')} ${JSON.stringify(f.pattern)})`
    case 'similar': return `(similar ${f.field.name} ${JSON.stringify(f.text)})`
    case 'regex': return `(regex ${f.field.name} ${JSON.stringify(f.pattern)})`
    case 'has-key': return `(has-key ${f.field.name} ${JSON.stringify(f.key)})`
    case 'json-path': return `(json ${[f.field.name, ...f.path].join('.')} ${JSON.stringify(f.test)})`
    case 'related': return `(${f.relation.name} ${show(f.condition)})`
  }
}

function ok (text: string, model: QueryModel = MODEL): string {
  const result = check(text, model)
  if (!result.ok) assert.fail(`${text}: ${JSON.stringify(result.issues)}`)
  assert.notEqual(result.filter, undefined, text)
  return show(result.filter!)
}

function issues (text: string, model: QueryModel = MODEL): QueryIssue[] {
  const result = check(text, model)
  if (result.ok) assert.fail(`${text} was accepted as ${result.filter === undefined ? 'nothing' : show(result.filter)}`)
  assert.ok(result.issues.length > 0, text)
  return [...result.issues]
}

function only (text: string, model: QueryModel = MODEL): QueryIssue {
  const found = issues(text, model)
  assert.equal(found.length, 1, `${text}: ${JSON.stringify(found)}`)
  return found[0]!
}

/** Table rows: [filter, expected S-expression] or [filter, expected issue code]. */
function accepts (rows: ReadonlyArray<readonly [string, string]>, model: QueryModel = MODEL): void {
  for (const [text, expected] of rows) assert.equal(ok(text, model), expected, text)
}

function refuses (rows: ReadonlyArray<readonly [string, string]>, model: QueryModel = MODEL): void {
  for (const [text, code] of rows) assert.equal(only(text, model).code, code, text)
}

const SEARCHED = 'name,note'

test('an empty filter checks to no filter', () => {
  assert.deepEqual(checkFilter(undefined, MODEL), { ok: true, filter: undefined })
  assert.deepEqual(check('  '), { ok: true, filter: undefined })
})

test('in(): a field and one or more values typed against it', () => {
  accepts([
    ['in(count, 1, 2, -3)', '(in count "1" "2" "-3")'],
    ['in(name, a, "b c", 42)', '(in name "a" "b c" "42")'],
    ['in(active, true, false)', '(in active true false)'],
    ['in(seen_at, now() - 1d, "2026-01-01T00:00:00Z")', '(in seen_at now-86400000 "2026-01-01T00:00:00Z")'],
    ['in(name, tea*)', '(in name "tea*")'],
  ])
  assert.deepEqual(only('in(count)'), { code: 'wrong-arguments', message: 'in() takes 2 or more arguments.', hint: undefined, span: { start: 0, end: 9 } })
  assert.deepEqual(only('in()').message, 'in() takes 2 or more arguments.')
  assert.deepEqual(only(`in(count, ${Array.from({ length: 1000 }, (_, i) => i).join(', ')})`).message, 'in() takes at most 1000 arguments.')
  assert.equal(ok(`in(count, ${Array.from({ length: 999 }, (_, i) => i).join(', ')})`).split(' ').length, 1001)
  assert.deepEqual(only('in("count", 1)'), { code: 'wrong-arguments', message: 'Argument 1 of in() must be a field name, unquoted.', hint: undefined, span: { start: 3, end: 10 } })
  assert.deepEqual(only('in(now(), 1)').code, 'wrong-arguments')
  assert.deepEqual(only('in(data, 1)'), { code: 'unsupported-operator', message: "Field 'data' is json: it cannot be compared.", hint: 'Compare a key inside it (field.key = "text", field.key > 40), or test field:key, field:* or isNull(field).', span: { start: 0, end: 11 } })
  assert.equal(only('in(nope, 1)').code, 'unknown-field')
  // Every bad value is reported, not only the first.
  assert.deepEqual(issues('in(count, 1, x, 2.5)').map((i) => [i.code, i.span.start, i.span.end]), [['type-mismatch', 13, 14], ['type-mismatch', 16, 19]])
})

test('search() and bare words: case-insensitive contains over the searchable fields', () => {
  accepts([
    ['search("green tea")', `(search ${SEARCHED} "%green tea%")`],
    ['search(tea)', `(search ${SEARCHED} "%tea%")`],
    ['tea', `(search ${SEARCHED} "%tea%")`],
    ['"green tea"', `(search ${SEARCHED} "%green tea%")`],
    ['green tea', `(and (search ${SEARCHED} "%green%") (search ${SEARCHED} "%tea%"))`],
    ['-tea', `(not (search ${SEARCHED} "%tea%"))`],
    ['te*a', `(search ${SEARCHED} "%te%a%")`],
    ['"te\\*a"', `(search ${SEARCHED} "%te*a%")`],
    // LIKE's own wildcards and escape character are escaped.
    ['"100%_\\\\"', `(search ${SEARCHED} "%100\\\\%\\\\_\\\\\\\\%")`],
    ['42', `(search ${SEARCHED} "%42%")`],
  ])
  assert.deepEqual(only('search(a, b)'), { code: 'wrong-arguments', message: 'search() takes 1 argument.', hint: undefined, span: { start: 0, end: 12 } })
  assert.equal(only('search()').code, 'wrong-arguments')
  assert.deepEqual(only('search(now())'), { code: 'wrong-arguments', message: 'search() takes text.', hint: undefined, span: { start: 7, end: 12 } })
  const long = 'x'.repeat(1001)
  assert.deepEqual(only(`search("${long}")`), { code: 'too-long', message: 'Search text is limited to 1000 characters.', hint: undefined, span: { start: 7, end: 1010 } })
  assert.equal(ok(`search("${'x'.repeat(1000)}")`), `(search ${SEARCHED} "%${'x'.repeat(1000)}%")`)
  // Without searchable fields, both forms are refused with the same issue.
  const plain = restricted(ITEMS, ALL.filter((f) => !f.searchable))
  assert.deepEqual(only('tea', plain), { code: 'not-searchable', message: 'items has no fields you can search.', hint: 'Filter on a field instead: field = value.', span: { start: 0, end: 3 } })
  assert.deepEqual(only('search(tea)', plain), { code: 'not-searchable', message: 'items has no fields you can search.', hint: 'Filter on a field instead: field = value.', span: { start: 0, end: 11 } })
  // Only the caller's searchable fields are searched.
  assert.equal(ok('tea', restricted(ITEMS, ALL.filter((f) => f.name !== 'note'))), '(search name "%tea%")')
})

test('similar(): a text field and text, only with pg_trgm', () => {
  accepts([
    ['similar(name, "green tee")', '(similar name "green tee")'],
    ['similar(name, tea)', '(similar name "tea")'],
  ])
  assert.deepEqual(only('similar(name, "tea")', restricted(ITEMS, ALL, false)), {
    code: 'unavailable', message: 'similar() needs the pg_trgm extension, which this database does not have.', hint: 'An administrator can run: CREATE EXTENSION pg_trgm', span: { start: 0, end: 7 },
  })
  assert.deepEqual(only('similar(count, "1")'), { code: 'type-mismatch', message: "similar() works on text fields, and 'count' is an integer.", hint: undefined, span: { start: 8, end: 13 } })
  assert.deepEqual(only('similar(name)'), { code: 'wrong-arguments', message: 'similar() takes 2 arguments.', hint: undefined, span: { start: 0, end: 13 } })
  assert.deepEqual(only('similar(name, now())'), { code: 'wrong-arguments', message: 'Argument 2 of similar() must be text.', hint: undefined, span: { start: 14, end: 19 } })
  assert.deepEqual(only('similar("name", x)').message, 'Argument 1 of similar() must be a field name, unquoted.')
  // Both arguments are checked.
  assert.deepEqual(issues('similar(count, now())').map((i) => i.code), ['type-mismatch', 'wrong-arguments'])
})

test('regex(): a text field and a pattern PostgreSQL can compile', () => {
  accepts([
    ['regex(name, "^gr[e]+n\\\\s+tea$")', '(regex name "^gr[e]+n\\\\s+tea$")'],
    ['regex(name, "(a|b)\\\\1{2,255}")', '(regex name "(a|b)\\\\1{2,255}")'],
    ['regex(name, "[[:alpha:]_-]+\\\\y")', '(regex name "[[:alpha:]_-]+\\\\y")'],
    ['regex(name, "[]a]")', '(regex name "[]a]")'],
    ['regex(name, "(?:x)(?=y)(?!z)(?<=w)(?<!v)")', '(regex name "(?:x)(?=y)(?!z)(?<=w)(?<!v)")'],
    ['regex(name, "\\\\d\\\\D\\\\w\\\\W\\\\s\\\\S\\\\m\\\\M\\\\A\\\\Z\\\\.\\\\x41\\\\u0041")', '(regex name "\\\\d\\\\D\\\\w\\\\W\\\\s\\\\S\\\\m\\\\M\\\\A\\\\Z\\\\.\\\\x41\\\\u0041")'],
    ['regex(name, tea)', '(regex name "tea")'],
  ])
  for (const pattern of ['(', '[', 'a**', 'x{2,1}', '\\\\q', '\\\\p{L}', '(?<n>a)', 'a{256}', '[[:nope:]]', '\\\\1', '(a)\\\\2', '[]', '[^]', '\\\\', '\\\\u12', '\\\\c']) {
    const text = `regex(name, "${pattern}")`
    assert.deepEqual(only(text), { code: 'invalid-regex', message: 'The regular expression is not valid.', hint: undefined, span: { start: 12, end: text.length - 1 } }, text)
  }
  assert.deepEqual(only(`regex(name, "${'a'.repeat(1001)}")`).code, 'too-long')
  assert.deepEqual(only('regex(data, "x")'), { code: 'type-mismatch', message: "regex() works on text fields, and 'data' is a json.", hint: undefined, span: { start: 6, end: 10 } })
  assert.equal(only('regex(name)').code, 'wrong-arguments')
  assert.equal(only('regex(name, now())').code, 'wrong-arguments')
})

test('isNull(): a field, of any type', () => {
  accepts([
    ['isNull(name)', '(null name)'],
    ['isNull(data)', '(null data)'],
    ['NOT isNull(seen_at)', '(not (null seen_at))'],
  ])
  assert.deepEqual(only('isNull(name, note)'), { code: 'wrong-arguments', message: 'isNull() takes 1 argument.', hint: undefined, span: { start: 0, end: 18 } })
  assert.equal(only('isNull()').code, 'wrong-arguments')
  assert.deepEqual(only('isNull("name")').message, 'Argument 1 of isNull() must be a field name, unquoted.')
  assert.equal(only('isNull(nope)').code, 'unknown-field')
})

test('now() is a value: alone it is misplaced; unknown functions suggest a near name', () => {
  assert.deepEqual(only('now()'), { code: 'misplaced-function', message: 'now() is a value: compare a field with it.', hint: 'placed_at > now() - 7d', span: { start: 0, end: 5 } })
  assert.deepEqual(only('name = x OR now()').code, 'misplaced-function')
  assert.deepEqual(only('isnull(name)'), { code: 'unknown-function', message: "There is no function 'isnull'.", hint: 'Did you mean isNull()?', span: { start: 0, end: 6 } })
  assert.deepEqual(only('serch("x")').hint, 'Did you mean search()?')
  assert.deepEqual(only('lower(name)'), { code: 'unknown-function', message: "There is no function 'lower'.", hint: `Functions: ${FUNCTIONS.map((f) => f + '()').join(', ')}.`, span: { start: 0, end: 5 } })
  assert.equal(only('lower(name)').hint, 'Functions: in(), search(), similar(), regex(), isNull(), now().')
})

test('now() compares with timestamp and date fields, with durations in ms s m h d w', () => {
  accepts([
    ['seen_at > now()', '(> seen_at now)'],
    ['seen_at > now() - 7d', '(> seen_at now-604800000)'],
    ['seen_at < now() + 1h', '(< seen_at now+3600000)'],
    ['seen_at >= now() -7d', '(>= seen_at now-604800000)'],
    ['seen_at <= now() - 90s', '(<= seen_at now-90000)'],
    ['seen_at != now() - 15m', '(<> seen_at now-900000)'],
    ['seen_at = now() + 2w', '(= seen_at now+1209600000)'],
    ['seen_at > now() - 500ms', '(> seen_at now-500)'],
    ['seen_at > now() - 1.5d', '(> seen_at now-129600000)'],
    ['seen_at > now() - 0.0005s', '(> seen_at now-0.5)'],
    ['born >= now() - 30d', '(>= born now-2592000000)'],
    ['seen_at:now()', '(= seen_at now)'],
  ])
  for (const bad of ['7x', '7', 'd', '7dd', '1e3d', '-7d']) {
    const text = `seen_at > now() - ${bad}`
    assert.deepEqual(only(text), { code: 'invalid-duration', message: 'Not a duration.', hint: 'Use a number and a unit: 90s, 15m, 12h, 7d or 2w.', span: { start: 18, end: 18 + bad.length } }, text)
  }
  // Durations stay within what PostgreSQL's timestamps can reach, and print without exponents.
  assert.equal(only('seen_at > now() - 99999999999999999999d').code, 'invalid-duration')
  assert.equal(only('seen_at > now() + 60000w').code, 'invalid-duration')
  assert.equal(ok('seen_at > now() - 0.0000001ms'), '(> seen_at now)')
  assert.deepEqual(only('count > now()'), {
    code: 'type-mismatch', message: "now() compares only with a timestamp or date field, and 'count' is an integer.", hint: 'Use a whole number such as 42.', span: { start: 8, end: 13 },
  })
  assert.equal(only('name:now()').code, 'type-mismatch')
  assert.equal(only('in(name, now())').code, 'type-mismatch')
})

test('integer and bigint literals: whole numbers in range', () => {
  accepts([
    ['count = 42', '(= count "42")'],
    ['count = -2147483648', '(= count "-2147483648")'],
    ['count <= 2147483647', '(<= count "2147483647")'],
    ['count = "7"', '(= count "7")'],
    ['count != 0', '(<> count "0")'],
    ['big = 9223372036854775807', '(= big "9223372036854775807")'],
    ['big > -9223372036854775808', '(> big "-9223372036854775808")'],
    ['id:3', '(= id "3")'],
  ])
  refuses([
    ['count = 2147483648', 'type-mismatch'],
    ['count = -2147483649', 'type-mismatch'],
    ['count = 1.5', 'type-mismatch'],
    ['count = 1e3', 'type-mismatch'],
    ['count = abc', 'type-mismatch'],
    ['count = ""', 'type-mismatch'],
    ['count = 1*', 'type-mismatch'],
    ['big = 9223372036854775808', 'type-mismatch'],
    ['big = -9223372036854775809', 'type-mismatch'],
  ])
  assert.deepEqual(only('count = abc'), { code: 'type-mismatch', message: "The value is not a valid integer for field 'count'.", hint: 'Use a whole number such as 42.', span: { start: 8, end: 11 } })
  assert.deepEqual(only('count > 7d').hint, 'A duration goes with now(): placed_at > now() - 7d.')
})

test('decimal and number literals', () => {
  accepts([
    ['price = 4.50', '(= price "4.50")'],
    ['price > -.5', '(> price "-.5")'],
    ['price < 1e3', '(< price "1e3")'],
    ['price = 12', '(= price "12")'],
    ['price = 1e-1000', '(= price "1e-1000")'],
    ['ratio = 0.25', '(= ratio "0.25")'],
    ['ratio = "-1.5E+10"', '(= ratio "-1.5E+10")'],
    ['ratio = -1.5E+10', '(= ratio "-1.5E+10")'],
    ['price < 2e+3', '(< price "2e+3")'],
    ['ratio = -1.5E10', '(= ratio "-1.5E10")'],
    ['ratio = 4e-320', '(= ratio "4e-320")'],
    ['ratio = 0e-999', '(= ratio "0e-999")'],
  ])
  refuses([
    ['price = 1.2.3', 'type-mismatch'],
    ['price = abc', 'type-mismatch'],
    ['price = 1e', 'type-mismatch'],
    ['price = .', 'type-mismatch'],
    ['price = 1e99999', 'type-mismatch'],
    ['price = 1e-99999', 'type-mismatch'],
    [`price = ${'1'.repeat(101)}`, 'type-mismatch'],
    ['ratio = 1e400', 'type-mismatch'],
    ['ratio = -1e309', 'type-mismatch'],
    ['ratio = 1e-400', 'type-mismatch'],
    ['ratio = NaN', 'type-mismatch'],
    ['ratio = Infinity', 'type-mismatch'],
  ])
  assert.deepEqual(only('price = abc'), { code: 'type-mismatch', message: "The value is not a valid decimal for field 'price'.", hint: 'Use a number such as 4.50.', span: { start: 8, end: 11 } })
  // On a float4 column (known from introspection) a number must fit a float4.
  const float4 = restricted(ITEMS, ALL.map((f) => f.name === 'ratio' ? { ...f, columnType: 'float4' } : f))
  assert.equal(ok('ratio = 3e38', float4), '(= ratio "3e38")')
  assert.equal(ok('ratio = 0.1', float4), '(= ratio "0.1")')
  assert.equal(only('ratio = 1e39', float4).code, 'type-mismatch')
  assert.equal(only('ratio = -1e-46', float4).code, 'type-mismatch')
  assert.equal(ok('ratio = 1e39'), '(= ratio "1e39")')
  assert.equal(only('ratio = abc').hint, 'Use a number such as 4.5.')
})

test('boolean literals: true or false, with = and != only', () => {
  accepts([
    ['active = true', '(= active true)'],
    ['active = false', '(= active false)'],
    ['active != true', '(<> active true)'],
    ['active = "true"', '(= active true)'],
    ['active:false', '(= active false)'],
  ])
  refuses([
    ['active = yes', 'type-mismatch'],
    ['active = TRUE', 'type-mismatch'],
    ['active = 1', 'type-mismatch'],
  ])
  assert.deepEqual(only('active > true'), { code: 'unsupported-operator', message: "Field 'active' is a boolean: use = or !=.", hint: undefined, span: { start: 0, end: 13 } })
  assert.equal(only('active = yes').hint, 'Use true or false.')
})

test('date literals: real calendar dates only', () => {
  accepts([
    ['born = 2026-01-31', '(= born "2026-01-31")'],
    ['born = "2026-02-28"', '(= born "2026-02-28")'],
    ['born = 2024-02-29', '(= born "2024-02-29")'],
    ['born < 0050-06-01', '(< born "0050-06-01")'],
    ['born > 9999-12-31', '(> born "9999-12-31")'],
  ])
  for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-01-32', '2026-1-5', '26-01-01', '0000-01-01', 'today', '"2026-01-31T00:00:00Z"']) {
    const text = `born = ${bad}`
    assert.deepEqual(only(text), { code: 'type-mismatch', message: "The value is not a valid date for field 'born'.", hint: 'Quote a date as "2026-01-31".', span: { start: 7, end: text.length } }, text)
  }
})

// AIP-160: "Timestamps expect an RFC-3339 formatted string (e.g. 2012-04-21T11:30:00-04:00)".
test('timestamp literals: RFC 3339 date-times exactly, quoted or bare', () => {
  accepts([
    ['seen_at > "2026-01-31T12:00:00Z"', '(> seen_at "2026-01-31T12:00:00Z")'],
    ['seen_at > 2026-01-31T12:00:00Z', '(> seen_at "2026-01-31T12:00:00Z")'],
    ['seen_at > "2026-01-31T12:00:00.123456+05:30"', '(> seen_at "2026-01-31T12:00:00.123456+05:30")'],
    ['seen_at > 2012-04-21T11:30:00-04:00', '(> seen_at "2012-04-21T11:30:00-04:00")'],
    ['seen_at > 2026-01-31T12:00:00.123456789Z', '(> seen_at "2026-01-31T12:00:00.123456789Z")'],
    ['seen_at > "2026-01-31t12:00:00z"', '(> seen_at "2026-01-31t12:00:00z")'],
    ['seen_at > "2026-01-31T12:00:00-15:59"', '(> seen_at "2026-01-31T12:00:00-15:59")'],
    ['seen_at < "0099-01-31T00:00:00Z"', '(< seen_at "0099-01-31T00:00:00Z")'],
  ])
  const bad = [
    '"2026-02-30T00:00:00Z"', '"2026-01-31T25:00:00Z"', '"2026-01-31T12:60:00Z"', '"2026-01-31T12:00:00+16:00"', '"2026-01-31T12:00:00-23:00"',
    '"0000-01-01T00:00:00Z"', 'yesterday', '12345', '"2026-01-31X12:00:00Z"',
    // Not RFC 3339: a space for T, a date alone, no zone, an offset without its colon, no seconds.
    '"2022-08-12 22:22:22"', '"2024-01-01"', '2024-01-01', '"2026-01-31T12:00:00"', '"2026-01-31T12:00:00+0100"', '"2026-01-31T12:00Z"',
  ]
  for (const value of bad) {
    const text = `seen_at > ${value}`
    assert.deepEqual(only(text), {
      code: 'type-mismatch', message: "The value is not a valid timestamp for field 'seen_at'.", hint: 'Use an RFC 3339 timestamp such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00, or now() - 7d.', span: { start: 10, end: text.length },
    }, text)
  }
})

test('uuid and string literals', () => {
  accepts([
    ['ref = 123e4567-e89b-12d3-a456-426614174000', '(= ref "123e4567-e89b-12d3-a456-426614174000")'],
    ['ref = "123E4567E89B12D3A456426614174000"', '(= ref "123E4567E89B12D3A456426614174000")'],
    ['name = 42', '(= name "42")'],
    ['name = true', '(= name "true")'],
    ['name = "say \\"hi\\"\\n"', '(= name "say \\"hi\\"\\n")'],
    ["name = 'a\\\\b'", '(= name "a\\\\b")'],
    ['name > "m"', '(> name "m")'],
  ])
  refuses([
    ['ref = 123', 'type-mismatch'],
    ['ref = 123e4567-e89b-12d3-a456-42661417400g', 'type-mismatch'],
    ['ref = "{123e4567-e89b-12d3-a456-426614174000}"', 'type-mismatch'],
  ])
})

test('json fields: field:key, field:*, = null and isNull; compared only at a key path', () => {
  accepts([
    ['data:gift', '(has-key data "gift")'],
    ['data:"gift card"', '(has-key data "gift card")'],
    ['data:"a\\*"', '(has-key data "a*")'],
    ['data:*', '(not-null data)'],
    ['data = null', '(null data)'],
    ['data != null', '(not-null data)'],
    ['-data:gift', '(not (has-key data "gift"))'],
  ])
  const hint = 'Compare a key inside it (field.key = "text", field.key > 40), or test field:key, field:* or isNull(field).'
  assert.deepEqual(only('data = 1'), { code: 'unsupported-operator', message: "Field 'data' is json: it cannot be compared.", hint, span: { start: 0, end: 8 } })
  assert.deepEqual(only('data > "x"').code, 'unsupported-operator')
  assert.deepEqual(only('data = x*').code, 'unsupported-operator')
  assert.deepEqual(only('data:now()'), { code: 'type-mismatch', message: 'field:key needs a key name.', hint: undefined, span: { start: 5, end: 10 } })
})

// AIP-160, "Traversal operator": a.b = true, a.b > 42, a.b.c = "foo"; "Has operator": m.foo:*, m.foo:42.
test('traversal into json: the literal\'s form chooses a string, number or boolean comparison', () => {
  const json = (path: string, test: object): string => `(json ${path} ${JSON.stringify(test)})`
  accepts([
    ['data.color = red', json('data.color', { kind: 'compare', op: '=', type: 'string', value: 'red' })],
    ['data.color = "red"', json('data.color', { kind: 'compare', op: '=', type: 'string', value: 'red' })],
    ['data.color != "red"', json('data.color', { kind: 'compare', op: '<>', type: 'string', value: 'red' })],
    ['data.b.c = "foo"', json('data.b.c', { kind: 'compare', op: '=', type: 'string', value: 'foo' })],
    ['data.size > 42', json('data.size', { kind: 'compare', op: '>', type: 'number', value: '42' })],
    ['data.size <= -1.5e3', json('data.size', { kind: 'compare', op: '<=', type: 'number', value: '-1.5e3' })],
    // Quotes make it text: "42" is the string 42, "true" the string true.
    ['data.size = "42"', json('data.size', { kind: 'compare', op: '=', type: 'string', value: '42' })],
    ['data.b = true', json('data.b', { kind: 'compare', op: '=', type: 'boolean', value: true })],
    ['data.b != false', json('data.b', { kind: 'compare', op: '<>', type: 'boolean', value: false })],
    ['data.b = "true"', json('data.b', { kind: 'compare', op: '=', type: 'string', value: 'true' })],
    ['data.name > "m"', json('data.name', { kind: 'compare', op: '>', type: 'string', value: 'm' })],
    ['data.color = re*', json('data.color', { kind: 'like', pattern: 're%', negated: false })],
    ['data.color != "*\\*"', json('data.color', { kind: 'like', pattern: '%*', negated: true })],
    ['data.foo:*', json('data.foo', { kind: 'present' })],
    ['data.tags:red', json('data.tags', { kind: 'has', key: 'red' })],
    ['data.foo:42', json('data.foo', { kind: 'has', key: '42' })],
    ['data.x = null', json('data.x', { kind: 'null', negated: false })],
    ['data.x != null', json('data.x', { kind: 'null', negated: true })],
    ['isNull(data.x)', json('data.x', { kind: 'null', negated: false })],
    ['in(data.color, red, 42)', `(or ${json('data.color', { kind: 'compare', op: '=', type: 'string', value: 'red' })} ${json('data.color', { kind: 'compare', op: '=', type: 'number', value: '42' })})`],
    // Keys are text of any kind: keywords, digits, and quoted keys with dots and spaces.
    ['data.AND = 1', json('data.AND', { kind: 'compare', op: '=', type: 'number', value: '1' })],
    ['data.type_map.1.type = x', json('data.type_map.1.type', { kind: 'compare', op: '=', type: 'string', value: 'x' })],
    ['data."gift card" = true', json('data.gift card', { kind: 'compare', op: '=', type: 'boolean', value: true })],
    ['data."a.b".c:*', json('data.a.b.c', { kind: 'present' })],
    ['data.color = (red OR blue)', `(or ${json('data.color', { kind: 'compare', op: '=', type: 'string', value: 'red' })} ${json('data.color', { kind: 'compare', op: '=', type: 'string', value: 'blue' })})`],
  ])
  assert.deepEqual(only('data.b > true'), { code: 'unsupported-operator', message: 'A json boolean compares with = or != only.', hint: undefined, span: { start: 0, end: 13 } })
  assert.deepEqual(only('data.x < null'), { code: 'invalid-null', message: 'Only = and != compare with null.', hint: 'Write meta.key = null or meta.key != null.', span: { start: 0, end: 13 } })
  assert.deepEqual(only('data.x > re*').code, 'unsupported-operator')
  assert.deepEqual(only('data.x > now()').code, 'type-mismatch')
})

test('traversal into anything but json, a path with no comparison, and a malformed path are refused with a span', () => {
  const noKeys = (field: string, type: string): Partial<QueryIssue> => ({ code: 'invalid-path', message: `Field '${field}' is ${type}: it has no keys to traverse.`, hint: 'Only json fields have keys: meta.color = "red".' })
  const cases: Array<[string, Partial<QueryIssue>, [number, number]]> = [
    ['name.x = 1', noKeys('name', 'a string'), [5, 6]],
    ['count.a.b > 1', noKeys('count', 'an integer'), [6, 9]],
    ['name.x', noKeys('name', 'a string'), [5, 6]],
    ['isNull(name.x)', noKeys('name', 'a string'), [12, 13]],
    ['nope.x = 1', { code: 'unknown-field', message: "There is no field 'nope' to filter on." }, [0, 4]],
    // AIP-160's own example: a traversal of a field that is not a message is an error.
    ['expr.type_map.1.type', { code: 'unknown-field', message: "There is no field 'expr' to filter on." }, [0, 4]],
    ['data.color', { code: 'missing-comparison', message: 'A field path needs a comparison.', hint: 'Compare it, as in data.key = "text", or test it: data.key:*. To search for text with a dot, quote it: "v1.2".' }, [0, 10]],
    ['isNull(data.)', { code: 'invalid-path', message: 'A dot in a field path must be followed by a key.' }, [11, 12]],
    ['in(data..x, 1)', { code: 'invalid-path' }, [7, 8]],
    ['regex(data.x, "a")', { code: 'type-mismatch', message: "regex() works on text fields, and 'data' is a json." }, [6, 12]],
  ]
  for (const [text, expected, [start, end]] of cases) {
    const issue = only(text)
    for (const [key, want] of Object.entries(expected)) assert.deepEqual(issue[key as keyof QueryIssue], want, `${text}: ${key}`)
    assert.deepEqual(issue.span, { start, end }, text)
  }
})

test('null: = null and != null test for NULL; other comparators are refused; "null" is text', () => {
  accepts([
    ['name = null', '(null name)'],
    ['name != null', '(not-null name)'],
    ['count = null', '(null count)'],
    ['seen_at != null', '(not-null seen_at)'],
    ['NOT name = null', '(not (null name))'],
    ['name = "null"', '(= name "null")'],
    ['name = NULL', '(= name "NULL")'],
  ])
  for (const op of ['<', '<=', '>', '>=', ':']) {
    const text = `count ${op} null`
    assert.deepEqual(only(text), { code: 'invalid-null', message: 'Only = and != compare with null.', hint: 'Write count = null or count != null.', span: { start: 0, end: text.length } }, text)
  }
  assert.equal(only('count = "null"').code, 'type-mismatch')
})

test('wildcards: a bare or quoted * in string equality is LIKE; an escaped \\* is a star', () => {
  accepts([
    ['name = tea*', '(like name "tea%")'],
    ['name = "*tea*"', '(like name "%tea%")'],
    ['name = "green * tea"', '(like name "green % tea")'],
    ['name != tea*', '(not-like name "tea%")'],
    ['name = "tea\\*"', '(= name "tea*")'],
    ['name = "\\*\\*"', '(= name "**")'],
    ['name = "t\\*a*"', '(like name "t*a%")'],
    ['name = "50%_*"', '(like name "50\\\\%\\\\_%")'],
    ['name = "a\\\\*"', '(like name "a\\\\\\\\%")'],
    ['name = "a\\\\"', '(= name "a\\\\")'],
  ])
  assert.deepEqual(only('name > tea*'), { code: 'unsupported-operator', message: 'A * wildcard works with = and != only.', hint: 'Escape a literal star as \\* inside quotes.', span: { start: 0, end: 11 } })
  assert.equal(ok('name > "tea\\*"'), '(> name "tea*")')
})

test(': has: contains for text, presence with *, key for json, equality otherwise', () => {
  accepts([
    ['name:tea', '(ilike name "%tea%")'],
    ['name:"green tea"', '(ilike name "%green tea%")'],
    ['name:TEA', '(ilike name "%TEA%")'],
    ['name:te*a', '(ilike name "%te%a%")'],
    ['name:"\\*"', '(ilike name "%*%")'],
    ['name:"100%"', '(ilike name "%100\\\\%%")'],
    ['name:*', '(not-null name)'],
    ['count:*', '(not-null count)'],
    ['-name:*', '(not (not-null name))'],
    ['count:5', '(= count "5")'],
    ['active:true', '(= active true)'],
    ['born:2026-01-31', '(= born "2026-01-31")'],
  ])
  refuses([
    ['count:x', 'type-mismatch'],
    ['born:tomorrow', 'type-mismatch'],
  ])
})

// AIP-160: "Enums expect the enum's string representation (case-sensitive)", and the ordering
// operators "should not" be provided for enums.
test('enum fields: a config enum list and an enum column refuse other values, and ordering', () => {
  const model = buildModel('tickets', {
    fields: {
      id: { type: 'integer' },
      status: { type: 'string', enum: ['draft', 'open', 'closed'] },
      level: { type: 'integer', enum: [1, 2, 3] },
      mood: { type: 'string' },
    },
  })
  const fields = [...model.fields.values()].map((f) => f.name === 'mood' ? { ...f, columnType: 'enum', enumLabels: ['calm', 'wild'] } : f)
  const query = restricted(model, fields)
  accepts([
    ['status = open', '(= status "open")'],
    ['status != "closed"', '(<> status "closed")'],
    ['status:open', '(= status "open")'],
    ['status:*', '(not-null status)'],
    ['status = null', '(null status)'],
    ['status = (draft OR open)', '(or (= status "draft") (= status "open"))'],
    ['in(status, draft, closed)', '(in status "draft" "closed")'],
    ['status = dr*', '(like status "dr%")'],
    ['level = 2', '(= level "2")'],
    ['level = 02', '(= level "02")'],
    ['level >= 2', '(>= level "2")'],
    ['mood = wild', '(= mood "wild")'],
  ], query)
  const hint = 'One of: draft, open, closed.'
  for (const [text, start, end] of [['status = bogus', 9, 14], ['status != Open', 10, 14], ['status:clo', 7, 10], ['in(status, open, bogus)', 17, 22], ['status = (open OR bogus)', 18, 23]] as const) {
    assert.deepEqual(only(text, query), { code: 'type-mismatch', message: "The value is not one of the values of field 'status'.", hint, span: { start, end } }, text)
  }
  assert.equal(only('level = 4', query).hint, 'One of: 1, 2, 3.')
  assert.equal(only('mood = sad', query).hint, 'One of: calm, wild.')
  for (const op of ['<', '<=', '>', '>=']) {
    for (const field of ['status', 'mood']) {
      const text = `${field} ${op} open`
      assert.deepEqual(only(text, query), { code: 'unsupported-operator', message: `Field '${field}' is an enum: use = or !=.`, hint: `Several values: in(${field}, a, b).`, span: { start: 0, end: text.length } }, text)
    }
  }
})

test('logic nodes keep their structure', () => {
  accepts([
    ['name = a AND count > 1', '(and (= name "a") (> count "1"))'],
    ['name = a OR name = b count > 1', '(and (or (= name "a") (= name "b")) (> count "1"))'],
    ['NOT (name = a OR isNull(count))', '(not (or (= name "a") (null count)))'],
  ])
})

test('an unknown field suggests the nearest filterable name, or lists them', () => {
  assert.deepEqual(only('nmae = x'), { code: 'unknown-field', message: "There is no field 'nmae' to filter on.", hint: "Did you mean 'name'?", span: { start: 0, end: 4 } })
  const list = 'Fields you can filter on: id, name, note, count, big, price, ratio, active, born, seen_at, ref, data, secret.'
  assert.deepEqual(only('zzzzzzzz = x'), { code: 'unknown-field', message: "There is no field 'zzzzzzzz' to filter on.", hint: list, span: { start: 0, end: 8 } })
  assert.equal(only('zzzz = 1', restricted(ITEMS, [])).hint, 'Fields you can filter on: none.')
})

test('unknown, non-filterable and hidden fields are refused with exactly the same issue', () => {
  const withoutSecret = ALL.filter((f) => f.name !== 'secret')
  const notFilterable = buildModel('items', { fields: { ...Object.fromEntries(withoutSecret.map((f) => [f.name, { type: f.type, searchable: f.searchable }])), secret: { type: 'string', filterable: false, sortable: false } } })
  const neverDeclared = buildModel('items', { fields: Object.fromEntries(withoutSecret.map((f) => [f.name, { type: f.type, searchable: f.searchable }])) })
  const models = {
    unknown: restricted(neverDeclared, [...neverDeclared.fields.values()]),
    notFilterable: restricted(notFilterable, [...notFilterable.fields.values()]),
    hidden: restricted(ITEMS, withoutSecret),
  }
  // The field is real and usable when the caller may filter on it.
  assert.equal(ok('secret = x'), '(= secret "x")')
  const texts = ['secret = x', 'secret:*', 'secret = null', 'secret < 3', 'in(secret, a, b)', 'isNull(secret)', 'similar(secret, "x")', 'regex(secret, "(")', 'secret = tea*', 'secrt = x', 'NOT secret:x', 'name = a secret != b',
    'secret.x = 1', 'secret.x', 'secret.x:*', 'isNull(secret.x)', 'in(secret.a.b, 1)', 'secret = (a OR b)']
  for (const text of texts) {
    const [first, ...rest] = Object.values(models).map((model) => issues(text, model))
    for (const other of rest) assert.deepEqual(other, first, text)
    assert.ok(first!.every((i) => i.code === 'unknown-field' || i.code === 'invalid-regex'), text)
  }
  assert.deepEqual(issues('secret = x', models.hidden), [{ code: 'unknown-field', message: "There is no field 'secret' to filter on.", hint: 'Fields you can filter on: id, name, note, count, big, price, ratio, active, born, seen_at, ref, data.', span: { start: 0, end: 6 } }])
  assert.deepEqual(issues('secrt = x', models.hidden)[0]!.hint, issues('secrt = x', models.unknown)[0]!.hint)
  // A hidden json field: traversal into it is refused as if it did not exist, never as json.
  const withoutData = ALL.filter((f) => f.name !== 'data')
  const noData = buildModel('items', { fields: Object.fromEntries(withoutData.map((f) => [f.name, { type: f.type, searchable: f.searchable }])) })
  for (const text of ['data.color = red', 'data.size > 4', 'data.color:*', 'data.color', 'isNull(data.x)', 'data:gift']) {
    assert.deepEqual(issues(text, restricted(ITEMS, withoutData)), issues(text, restricted(noData, [...noData.fields.values()])), text)
    assert.equal(issues(text, restricted(ITEMS, withoutData))[0]!.code, 'unknown-field', text)
  }
})

test('several issues are all collected, in text order', () => {
  const text = 'nmae = x AND count = abc OR lower(name) AND active > true price = 1.2.3 born = 2026-02-30'
  assert.deepEqual(issues(text).map((i) => [i.code, text.slice(i.span.start, i.span.end)]), [
    ['unknown-field', 'nmae'],
    ['type-mismatch', 'abc'],
    ['unknown-function', 'lower'],
    ['unsupported-operator', 'active > true'],
    ['type-mismatch', '1.2.3'],
    ['type-mismatch', '2026-02-30'],
  ])
  assert.equal(issues('in(nope, 1) isNull(nope2) similar(count, x) regex(name, "(")').length, 4)
})

test('issue messages never quote a value', () => {
  for (const text of ['count = zq9xw', 'born = zq9xw', 'seen_at > zq9xw', 'ref = zq9xw', 'active = zq9xw', 'price = zq9xw', 'regex(name, "zq9xw(")', 'seen_at > now() - zq9xw', 'data = zq9xw', 'count < null OR name > zq9xw*']) {
    const found = issues(text)
    assert.doesNotMatch(JSON.stringify(found.map((i) => [i.message, i.hint])), /zq9xw/, text)
  }
})

test(`a filter binding more than ${MAX_VALUES} values is refused as too complex`, () => {
  assert.equal(MAX_VALUES, 20_000)
  // in() takes at most 1000 arguments: a field and 999 values.
  const lists = (n: number): string => Array.from({ length: n }, (_, k) => `in(count, ${Array.from({ length: 999 }, (_, i) => k * 1000 + i).join(', ')})`).join(' OR ')
  const fits = lists(20) + ' OR count = 1'.repeat(20)
  assert.equal(check(fits).ok, true)
  const text = fits + ' OR count = 1'
  assert.deepEqual(only(text), { code: 'too-complex', message: 'The filter needs more than 20000 values.', hint: 'Split the request into several, each with fewer values.', span: { start: 0, end: text.length } })
  // Bare words hit the search-term cap (32) long before the value limit; null tests bind no value.
  assert.equal(only('a '.repeat(10_001)).code, 'too-complex')
  assert.equal(check('isNull(name) '.repeat(30_000)).ok, true)
})

test('more than 32 search terms are too complex; 32 are fine', async () => {
  const { MAX_SEARCH_TERMS } = await import('../../lib/query/filter/checker.js')
  const model = buildModel('notes', { fields: { id: { type: 'integer' }, body: { type: 'string', searchable: true } } })
  const query = queryModel(model.name, [...model.fields.values()], true)
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ')
  assert.equal(MAX_SEARCH_TERMS, 32)
  assert.equal(checkFilter(parseFilter(words(32)), query).ok, true)
  const refused = checkFilter(parseFilter(words(33)), query)
  assert.equal(refused.ok, false)
  assert.deepEqual(!refused.ok && refused.issues.map((i) => i.code), ['too-complex'])
})
