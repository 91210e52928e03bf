// AIP-160's own grammar examples and the parse and refuse cases of two public implementations,
// read by tablegate's parser and checker. Each case cites its source; the cases are written here,
// not copied. Where tablegate reads a case differently, the comment says how (docs/queries.md,
// "Differences from AIP-160").
//   [AIP-160]  https://google.aip.dev/160 and its EBNF (the comments of each grammar rule)
//   [aip-go]   einride/aip-go, filtering/parser_test.go and ordering/orderby_test.go
//   [protoutil] @protoutil/aip (jafaircl/protoutil), packages/aip/src/filtering/parser.spec.ts
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModel } from '../../lib/model/build.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter } from '../../lib/query/filter/checker.js'
import { parseOrderBy } from '../../lib/query/order-by.js'
import { queryModel } from '../../lib/query/query-model.js'
import type { QueryIssue } from '../../lib/query/span.js'
import { parse, syntaxIssue as parseSyntaxIssue } from '../helpers/filter-trees.js'

const syntaxIssue = (input: string): QueryIssue => parseSyntaxIssue(() => parseFilter(input))

test('[AIP-160] the examples of the grammar and of the guidance parse as AIP-160 reads them', () => {
  const cases: Array<[string, string]> = [
    // expression: "a b AND c AND d" is "(a b) AND c AND d".
    ['a b AND c AND d', '(and (and (term a) (term b)) (term c) (term d))'],
    // sequence: "New York Giants OR Yankees" is "New York (Giants OR Yankees)".
    ['New York Giants OR Yankees', '(and (term New) (term York) (or (term Giants) (term Yankees)))'],
    ['New York (Giants OR Yankees)', '(and (term New) (term York) (or (term Giants) (term Yankees)))'],
    // factor: "a < 10 OR a >= 100".
    ['a < 10 OR a >= 100', '(or (< a 10) (>= a 100))'],
    // Logical operators: "a AND b OR c" evaluates "a AND (b OR c)".
    ['a AND b OR c', '(and (term a) (or (term b) (term c)))'],
    // term: "NOT (a OR b)", "-file:\".java\"", "-30" (a negative number, not a negation).
    ['NOT (a OR b)', '(not (or (term a) (term b)))'],
    ['-file:".java"', '(not (: file ".java"))'],
    ['-30', '(term -30)'],
    // restriction: "package=com.google" (right of a comparator a value is a literal), "msg != 'hello'".
    ['package=com.google', '(= package com.google)'],
    ["msg != 'hello'", '(!= msg "hello")'],
    // Comparison operators table.
    ['a = true', '(= a true)'],
    ['a != 42', '(!= a 42)'],
    ['a > "foo"', '(> a "foo")'],
    // Wildcards: a = "*.foo".
    ['a = "*.foo"', '(= a "*.foo")'],
    // Traversal operator table, and the has operator's map rows.
    ['a.b = true', '(= a.b true)'],
    ['a.b > 42', '(> a.b 42)'],
    ['a.b.c = "foo"', '(= a.b.c "foo")'],
    ['m:foo', '(: m foo)'],
    ['m.foo:*', '(: m.foo *)'],
    ['m.foo:42', '(: m.foo 42)'],
    ['r:42', '(: r 42)'],
    // Timestamps: RFC 3339, with a UTC offset.
    ['t > 2012-04-21T11:30:00-04:00', '(> t 2012-04-21T11:30:00-04:00)'],
    // comparable: "regex(m.key, '^.*prod.*$')" takes a path as its field argument.
    ["regex(m.key, '^.*prod.*$')", '(call regex m.key "^.*prod.*$")'],
    // member: "expr.type_map.1.type" is a path (refused by the checker when expr is no json field).
    ['expr.type_map.1.type', '(member expr.type_map.1.type)'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('[aip-go] filtering/parser_test.go: its accepted filters, as tablegate parses them', () => {
  const cases: Array<[string, string]> = [
    ['New York Giants', '(and (term New) (term York) (term Giants))'],
    ['(a b) AND c AND d', '(and (and (term a) (term b)) (term c) (term d))'],
    ['a OR b OR c', '(or (term a) (term b) (term c))'],
    ['msg != ""', '(!= msg "")'],
    ['msg != "\\\\"', '(!= msg "\\\\\\\\")'],
    ["msg != \"[ 'hello' ]\"", `(!= msg "[ 'hello' ]")`],
    ['msg != "[ \\"hello\\" ]"', '(!= msg "[ \\"hello\\" ]")'],
    ['1 > 0', '(> 1 0)'],
    ['2.5 >= 2.4', '(>= 2.5 2.4)'],
    ['foo >= -2.4', '(>= foo -2.4)'],
    // A parenthesised comparand: aip-go reads it as the number itself.
    ['foo >= (-2.4)', '(>= foo -2.4)'],
    ['yesterday < request.time', '(< yesterday request.time)'],
    ['prod', '(term prod)'],
    ['annotations:schedule', '(: annotations schedule)'],
    ['annotations.schedule = "test"', '(= annotations.schedule "test")'],
    [`start_time > "2006-01-02T15:04:05+07:00" AND (driver = "driver1" OR start_driver = "driver1")`,
      '(and (> start_time "2006-01-02T15:04:05+07:00") (or (= driver "driver1") (= start_driver "driver1")))'],
    // aip-go reads "-2.5 >= -2.4" as NOT(2.5 >= -2.4); here -2.5 is a number standing as the field,
    // which the checker refuses as an unknown field.
    ['-2.5 >= -2.4', '(>= -2.5 -2.4)'],
    // Functions tablegate has: now() as a value, regex() with a path argument.
    ['(endsWith(msg, \'world\') AND retries < 10)', '(and (call endsWith msg "world") (< retries 10))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('[aip-go] filtering/parser_test.go: its refused filters are refused', () => {
  assert.equal(syntaxIssue('<').code, 'syntax')
  assert.equal(syntaxIssue('(-2.5) >= -2.4').code, 'syntax')
  assert.equal(syntaxIssue('a = "foo').code, 'unterminated-string')
  // Dotted function names (math.mem('30mb'), time.now()) parse as calls; the checker knows none.
  assert.equal(parse("math.mem('30mb')"), '(call math.mem "30mb")')
  assert.equal(parse('time.now()'), '(call time.now)')
})

test('[protoutil] parser.spec.ts: its valid expressions parse', () => {
  const cases: Array<[string, string]> = [
    ['"A"', '(term "A")'],
    ["'hello'", '(term "hello")'],
    ['42', '(term 42)'],
    ['-3.14', '(term -3.14)'],
    ['', '()'],
    ['   ', '()'],
    ['a.b.c', '(member a.b.c)'],
    // Keywords are keys in a path (EBNF: field = value | keyword).
    ['a.AND', '(member a.AND)'],
    ['a.NOT = 1', '(= a.NOT 1)'],
    ['a = b', '(= a b)'],
    ['map:key', '(: map key)'],
    ['a.b:c', '(: a.b c)'],
    ['NOT a > 3', '(not (> a 3))'],
    ['-a.b.c', '(not (member a.b.c))'],
    ['a AND b OR c AND d', '(and (term a) (or (term b) (term c)) (term d))'],
    ['a OR b AND c', '(and (or (term a) (term b)) (term c))'],
    ['(a AND b) OR c', '(or (and (term a) (term b)) (term c))'],
    ['a b OR c', '(and (term a) (or (term b) (term c)))'],
    ['((a AND b))', '(and (term a) (term b))'],
    ['a b AND c', '(and (and (term a) (term b)) (term c))'],
    ['a AND b c', '(and (term a) (and (term b) (term c)))'],
    ['(region = US OR (region = EU AND status = ACTIVE)) AND priority > 3',
      '(and (or (= region US) (and (= region EU) (= status ACTIVE))) (> priority 3))'],
    ['(status = "ACTIVIA" OR status = "PENDING") AND metadata.region = "us-central1" AND NOT labels:deprecated',
      '(and (or (= status "ACTIVIA") (= status "PENDING")) (= metadata.region "us-central1") (not (: labels deprecated)))'],
    ['name = "hello*"', '(= name "hello*")'],
    ['description:"important*"', '(: description "important*")'],
    ['created_at > 2021-01-01T00:00:00Z', '(> created_at 2021-01-01T00:00:00Z)'],
    ['foo()', '(call foo)'],
    ['foo(a, b, c)', '(call foo a b c)'],
    // A space before the parenthesis: not a call (spec example "Mitakihara Magical (Girls OR Witches)").
    ['Mitakihara Magical (Girls OR Witches)', '(and (term Mitakihara) (term Magical) (or (term Girls) (term Witches)))'],
    // A composite comparand distributes: a = (b OR c) is a = b OR a = c.
    ['a = (b OR c)', '(or (= a b) (= a c))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('[protoutil] parser.spec.ts: its error cases are refused, with a span', () => {
  const refused = [
    '"abc', "'abc", 'theme = "ab', "a = 'hello", 'AND b', 'OR b', 'a AND', 'a OR', 'a AND AND b', 'a OR OR b', 'a OR AND b',
    'a =', '= b', 'a = = b', '(a AND b', 'a AND b)', '()', '((a AND b)', '(AND)', 'NOT', 'NOT NOT', 'a:', ':b',
    'foo(a, b', 'foo a, b)', 'foo(a,)', 'foo(a b)', 'a.', 'a..b',
  ]
  for (const input of refused) {
    const issue = syntaxIssue(input)
    assert.ok(issue.span.start >= 0 && issue.span.start <= issue.span.end && issue.span.end <= input.length, input)
  }
  assert.deepEqual(syntaxIssue('a.').span, { start: 1, end: 2 })
  assert.deepEqual(syntaxIssue('a..b').span, { start: 1, end: 2 })
  // protoutil reads "a = b = c" as an error; here the second "= c" is a new restriction with no field.
  assert.equal(syntaxIssue('a = b = c').code, 'syntax')
})

test('[protoutil] and [aip-go]: what parses but a typed model refuses, and why', () => {
  const model = buildModel('items', { fields: { id: { type: 'integer' }, title: { type: 'string', searchable: true }, meta: { type: 'json' }, start_time: { type: 'timestamp' } } })
  const query = queryModel(model.name, [...model.fields.values()], true)
  const codes = (text: string): string[] => {
    const result = checkFilter(parseFilter(text), query)
    return result.ok ? [] : result.issues.map((i) => i.code)
  }
  assert.deepEqual(codes('New York (Giants OR Yankees)'), [])
  assert.deepEqual(codes('meta.region = "us-central1" AND meta.tags:deprecated'), [])
  assert.deepEqual(codes('start_time > 2006-01-02T15:04:05+07:00'), [])
  // A function call as the left of a comparison (protoutil's "foo() = bar") is a syntax error here.
  assert.equal(syntaxIssue('foo() = bar').code, 'syntax')
  assert.deepEqual(codes('foo()'), ['unknown-function'])
  assert.deepEqual(codes("math.mem('30mb')"), ['unknown-function'])
  assert.deepEqual(codes('expr.type_map.1.type'), ['unknown-field'])
  assert.deepEqual(codes('title.x = 1'), ['invalid-path'])
  assert.deepEqual(codes('meta.region'), ['missing-comparison'])
  // Durations stand only with now() here; "ttl > 5s" compares text (protoutil reads a duration).
  assert.deepEqual(codes('start_time > 5s'), ['type-mismatch'])
})

test('[aip-go] ordering/orderby_test.go: order_by parse and refuse cases', () => {
  const model = buildModel('items', { fields: { id: { type: 'integer' }, foo: { type: 'string' }, bar: { type: 'string' }, meta: { type: 'json' } } })
  const query = queryModel(model.name, [...model.fields.values()], true)
  const order = (text: string): string => {
    const result = parseOrderBy(text, model, query)
    return result.ok ? result.order.map((t) => `${t.field.name} ${t.direction}`).join(', ') : `! ${result.issues.map((i) => i.code).join(' ')}`
  }
  assert.equal(order(''), 'id ASC')
  assert.equal(order('foo desc, bar'), 'foo DESC, bar ASC, id ASC')
  assert.equal(order(' foo , bar desc '), 'foo ASC, bar DESC, id DESC')
  assert.equal(order('foo,'), '! syntax')
  assert.equal(order(','), '! syntax syntax')
  assert.equal(order(',foo'), '! syntax')
  assert.equal(order('foo bar'), '! syntax')
  assert.equal(order('foo/bar'), '! unknown-field')
  // aip-go accepts "foo.bar" for nested messages; json fields are not sortable here.
  assert.equal(order('meta.color'), '! unknown-field')
})
