// The filter lexer and parser, rule by rule: tokens with their spans, parse trees (written as small
// S-expressions), and every syntax error with its exact code and span.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { lex } from '../../lib/query/filter/lexer.js'
import { MAX_DEPTH, parseFilter } from '../../lib/query/filter/parser.js'
import type { QueryIssue } from '../../lib/query/span.js'
import { parse, syntaxIssue } from '../helpers/filter-trees.js'

/** Tokens as `kind text start-end`, eof left out. */
function tokens (input: string): string[] {
  const all = lex(input)
  assert.equal(all.at(-1)!.kind, 'eof')
  assert.deepEqual(all.at(-1)!.span, { start: input.length, end: input.length })
  return all.slice(0, -1).map((t) => `${t.kind} ${JSON.stringify(t.text)} ${t.span.start}-${t.span.end}`)
}

test('lexer: words, comparators and punctuation, with spans', () => {
  assert.deepEqual(tokens('a = 1'), ['text "a" 0-1', '= "=" 2-3', 'text "1" 4-5'])
  assert.deepEqual(tokens('a!=b<c<=d>e>=f:g'), [
    'text "a" 0-1', '!= "!=" 1-3', 'text "b" 3-4', '< "<" 4-5', 'text "c" 5-6', '<= "<=" 6-8', 'text "d" 8-9',
    '> ">" 9-10', 'text "e" 10-11', '>= ">=" 11-13', 'text "f" 13-14', ': ":" 14-15', 'text "g" 15-16',
  ])
  assert.deepEqual(tokens('f(a, b)+'), ['text "f" 0-1', '( "(" 1-2', 'text "a" 2-3', ', "," 3-4', 'text "b" 5-6', ') ")" 6-7', '+ "+" 7-8'])
  // A + is an exponent's sign inside a bare number, and a token anywhere else.
  assert.deepEqual(tokens('x > -1.5E+10'), ['text "x" 0-1', '> ">" 2-3', 'text "-1.5E+10" 4-12'])
  assert.deepEqual(tokens('1e+'), ['text "1e" 0-2', '+ "+" 2-3'])
  assert.deepEqual(tokens('abe+1'), ['text "abe" 0-3', '+ "+" 3-4', 'text "1" 4-5'])
  assert.deepEqual(tokens('7d+1h'), ['text "7d" 0-2', '+ "+" 2-3', 'text "1h" 3-5'])
  assert.deepEqual(tokens(' \t\n\r'), [])
  assert.deepEqual(tokens(''), [])
  // Words run to a stop character: dots, stars, slashes and inner hyphens stay in the word.
  assert.deepEqual(tokens('tea*.x/y a-b 2026-01-31T10:00'), ['text "tea*.x/y" 0-8', 'text "a-b" 9-12', 'text "2026-01-31T10" 13-26', ': ":" 26-27', 'text "00" 27-29'])
  assert.deepEqual(tokens('ab"c"d'), ['text "ab" 0-2', 'string "c" 2-5', 'text "d" 5-6'])
})

test('lexer: AND, OR and NOT are keywords only in upper case', () => {
  assert.deepEqual(tokens('AND OR NOT'), ['and "AND" 0-3', 'or "OR" 4-6', 'not "NOT" 7-10'])
  assert.deepEqual(tokens('and or not And Or Not'), ['text "and" 0-3', 'text "or" 4-6', 'text "not" 7-10', 'text "And" 11-14', 'text "Or" 15-17', 'text "Not" 18-21'])
  assert.deepEqual(tokens('ANDY ORB NOTE'), ['text "ANDY" 0-4', 'text "ORB" 5-8', 'text "NOTE" 9-13'])
  assert.deepEqual(tokens('"AND"'), ['string "AND" 0-5'])
})

test('lexer: strings in double or single quotes, escapes resolved, \\\\ and \\* kept escaped', () => {
  const cases: Array<[string, string]> = [
    ['"hello world"', 'hello world'],
    ["'hello'", 'hello'],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'it\\'s'", "it's"],
    ['"it\'s"', "it's"],
    ["'say \"hi\"'", 'say "hi"'],
    ['"a\\nb\\tc\\rd"', 'a\nb\tc\rd'],
    ['"back\\\\slash"', 'back\\\\slash'],
    ['"star\\*"', 'star\\*'],
    ['"*"', '*'],
    ['""', ''],
    ['"( ) , = : AND"', '( ) , = : AND'],
  ]
  for (const [input, text] of cases) {
    const [token, eof] = lex(input)
    assert.deepEqual(token, { kind: 'string', text, span: { start: 0, end: input.length } }, input)
    assert.equal(eof!.kind, 'eof', input)
  }
  assert.deepEqual(tokens('x="a b" y'), ['text "x" 0-1', '= "=" 1-2', 'string "a b" 2-7', 'text "y" 8-9'])
})

test('lexer: unknown escapes, unterminated strings and a lone ! are errors with spans', () => {
  assert.deepEqual(syntaxIssue(() => lex('a = "x\\qy"')), {
    code: 'invalid-escape', message: 'Unknown escape sequence in a string.', hint: 'Use \\" \\\' \\\\ \\n \\t or \\* (a literal *).', span: { start: 6, end: 8 },
  })
  assert.deepEqual(syntaxIssue(() => lex('"abc\\')).span, { start: 4, end: 5 })
  assert.deepEqual(syntaxIssue(() => lex('"abc\\')).code, 'invalid-escape')
  assert.deepEqual(syntaxIssue(() => lex('a = "open')), { code: 'unterminated-string', message: 'A string is not closed.', hint: 'Close it with ".', span: { start: 4, end: 9 } })
  assert.deepEqual(syntaxIssue(() => lex("a = 'open\\'")), { code: 'unterminated-string', message: 'A string is not closed.', hint: "Close it with '.", span: { start: 4, end: 11 } })
  assert.deepEqual(syntaxIssue(() => lex('a = "x\' AND b')).code, 'unterminated-string')
  assert.deepEqual(syntaxIssue(() => lex('a ! b')), {
    code: 'unexpected-character', message: 'Unexpected character.', hint: 'Use != for "not equal", or NOT / - to negate.', span: { start: 2, end: 3 },
  })
  assert.deepEqual(syntaxIssue(() => lex('!')).span, { start: 0, end: 1 })
  assert.deepEqual(syntaxIssue(() => lex('a !')).span, { start: 2, end: 3 })
  // PostgreSQL text cannot hold NUL, so no filter may carry one, quoted or not.
  assert.deepEqual(syntaxIssue(() => lex('a = "x\0y"')), { code: 'unexpected-character', message: 'Unexpected character.', hint: 'A filter cannot contain the NUL character.', span: { start: 6, end: 7 } })
  assert.deepEqual(syntaxIssue(() => lex('a\0')).span, { start: 1, end: 2 })
})

test('lexer: - is NOT before a word or a space, part of a number before a digit or a dot', () => {
  assert.deepEqual(tokens('-a'), ['- "-" 0-1', 'text "a" 1-2'])
  assert.deepEqual(tokens('- a'), ['- "-" 0-1', 'text "a" 2-3'])
  assert.deepEqual(tokens('-(a)'), ['- "-" 0-1', '( "(" 1-2', 'text "a" 2-3', ') ")" 3-4'])
  assert.deepEqual(tokens('-"a"'), ['- "-" 0-1', 'string "a" 1-4'])
  assert.deepEqual(tokens('-5'), ['text "-5" 0-2'])
  assert.deepEqual(tokens('-.5'), ['text "-.5" 0-3'])
  assert.deepEqual(tokens('a = -12.5e3'), ['text "a" 0-1', '= "=" 2-3', 'text "-12.5e3" 4-11'])
  assert.deepEqual(tokens('now() - 7d'), ['text "now" 0-3', '( "(" 3-4', ') ")" 4-5', '- "-" 6-7', 'text "7d" 8-10'])
  assert.deepEqual(tokens('now() -7d'), ['text "now" 0-3', '( "(" 3-4', ') ")" 4-5', 'text "-7d" 6-9'])
  assert.deepEqual(tokens('a-b'), ['text "a-b" 0-3'])
})

test('parser: an empty or blank filter is no filter', () => {
  assert.equal(parseFilter(''), undefined)
  assert.equal(parseFilter('   \n'), undefined)
})

test('parser: comparisons with each comparator and each kind of value', () => {
  const cases: Array<[string, string]> = [
    ['a = 1', '(= a 1)'],
    ['a != 1', '(!= a 1)'],
    ['a < 1', '(< a 1)'],
    ['a <= 1', '(<= a 1)'],
    ['a > 1', '(> a 1)'],
    ['a >= 1', '(>= a 1)'],
    ['a : 1', '(: a 1)'],
    ['a:b', '(: a b)'],
    ['a:*', '(: a *)'],
    ['a=-1.5', '(= a -1.5)'],
    ['a = "x y"', '(= a "x y")'],
    ["a = 'x'", '(= a "x")'],
    ['a = true', '(= a true)'],
    ['a = null', '(= a null)'],
    ['a = "null"', '(= a "null")'],
    ['a = tea*', '(= a tea*)'],
    ['a = "tea\\*"', '(= a "tea\\\\*")'],
    ['a = 2026-01-31', '(= a 2026-01-31)'],
    ['a = "2026-01-31T10:00:00Z"', '(= a "2026-01-31T10:00:00Z")'],
    ['a.b = 1', '(= a.b 1)'],
    ['a = and', '(= a and)'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('parser: now() with offsets', () => {
  const cases: Array<[string, string]> = [
    ['t > now()', '(> t now())'],
    ['t > now() - 7d', '(> t now()-7d)'],
    ['t > now() -7d', '(> t now()-7d)'],
    ['t > now()-7d', '(> t now()-7d)'],
    ['t < now() + 1h', '(< t now()+1h)'],
    ['t < now()+90s', '(< t now()+90s)'],
    ['t >= now() - 1.5w', '(>= t now()-1.5w)'],
    // The duration is not checked here: the checker says what is wrong with it.
    ['t > now() - soon', '(> t now()-soon)'],
    // A - after now() that is not followed by a word is a negation of what follows.
    ['t > now() -(a)', '(and (> t now()) (not (term a)))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
  const node = parseFilter('placed_at > now() - 7d')
  assert.deepEqual(node, {
    kind: 'compare',
    field: { text: 'placed_at', span: { start: 0, end: 9 } },
    path: [],
    op: '>',
    value: { kind: 'now', offset: { sign: -1, text: '7d', span: { start: 20, end: 22 } }, span: { start: 12, end: 22 } },
    span: { start: 0, end: 22 },
  })
  assert.deepEqual(parseFilter('t<now()'), {
    kind: 'compare',
    field: { text: 't', span: { start: 0, end: 1 } },
    path: [],
    op: '<',
    value: { kind: 'now', offset: undefined, span: { start: 2, end: 7 } },
    span: { start: 0, end: 7 },
  })
  const glued = parseFilter('t > now() -7d')
  assert.equal(glued?.kind, 'compare')
  assert.deepEqual(glued?.kind === 'compare' && glued.value.kind === 'now' ? glued.value.offset : undefined, { sign: -1, text: '7d', span: { start: 10, end: 13 } })
})

test('parser: OR binds tighter than AND, and adjacent terms are ANDed', () => {
  const cases: Array<[string, string]> = [
    ['a = 1 AND b = 2', '(and (= a 1) (= b 2))'],
    ['a = 1 OR b = 2', '(or (= a 1) (= b 2))'],
    ['a = 1 OR b = 2 AND c = 3', '(and (or (= a 1) (= b 2)) (= c 3))'],
    ['a = 1 AND b = 2 OR c = 3', '(and (= a 1) (or (= b 2) (= c 3)))'],
    ['a OR b OR c', '(or (term a) (term b) (term c))'],
    ['a AND b AND c', '(and (term a) (term b) (term c))'],
    ['a b', '(and (term a) (term b))'],
    ['a = 1 b = 2 c = 3', '(and (= a 1) (= b 2) (= c 3))'],
    ['a b OR c', '(and (term a) (or (term b) (term c)))'],
    ['a OR b c', '(and (or (term a) (term b)) (term c))'],
    ['a b AND c d', '(and (and (term a) (term b)) (and (term c) (term d)))'],
    ['a OR b c OR d', '(and (or (term a) (term b)) (or (term c) (term d)))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('parser: NOT and - negate one simple term', () => {
  const cases: Array<[string, string]> = [
    ['NOT a = 1', '(not (= a 1))'],
    ['-a = 1', '(not (= a 1))'],
    ['- a = 1', '(not (= a 1))'],
    ['-a', '(not (term a))'],
    ['-"tea pot"', '(not (term "tea pot"))'],
    ['NOT (a OR b)', '(not (or (term a) (term b)))'],
    ['-(a b)', '(not (and (term a) (term b)))'],
    ['NOT a OR b', '(or (not (term a)) (term b))'],
    ['a -b', '(and (term a) (not (term b)))'],
    ['a AND NOT b', '(and (term a) (not (term b)))'],
    ['NOT isNull(x)', '(not (call isNull x))'],
    // A minus before a digit is a number, so a bare negative number is a search term.
    ['-5', '(term -5)'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
})

test('parser: parentheses group, nest, and leave no node of their own', () => {
  const cases: Array<[string, string]> = [
    ['(a)', '(term a)'],
    ['((a))', '(term a)'],
    ['(a = 1 AND b = 2) OR c = 3', '(or (and (= a 1) (= b 2)) (= c 3))'],
    ['a = 1 AND (b = 2 OR (c = 3 AND (d = 4 OR e = 5)))', '(and (= a 1) (or (= b 2) (and (= c 3) (or (= d 4) (= e 5)))))'],
    ['(a)(b)', '(and (term a) (term b))'],
    ['(a OR b) (c OR d)', '(and (or (term a) (term b)) (or (term c) (term d)))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
  assert.deepEqual(parseFilter('((a))'), { kind: 'term', value: { kind: 'literal', quoted: false, text: 'a', span: { start: 2, end: 3 } }, span: { start: 2, end: 3 } })
})

test('parser: function calls with arguments, and bare terms', () => {
  const cases: Array<[string, string]> = [
    ['in(status, open, "on hold")', '(call in status open "on hold")'],
    ['search("green tea")', '(call search "green tea")'],
    ['similar(title, "tea")', '(call similar title "tea")'],
    ['regex(title, "^T.*a$")', '(call regex title "^T.*a$")'],
    ['isNull(due_on)', '(call isNull due_on)'],
    ['now()', '(call now)'],
    ['f()', '(call f)'],
    ['in(placed_at, now() - 1d, now())', '(call in placed_at now()-1d now())'],
    ['in( a , b )', '(call in a b)'],
    ['tea', '(term tea)'],
    ['"green tea"', '(term "green tea")'],
    ['12', '(term 12)'],
    ['tea*', '(term tea*)'],
    ['green tea', '(and (term green) (term tea))'],
    ['isNull(a) OR in(b, 1)', '(or (call isNull a) (call in b 1))'],
  ]
  for (const [input, expected] of cases) assert.equal(parse(input), expected, input)
  // A call is a name glued to its "(": with a space between, the word is a term and the parentheses
  // a composite, as AIP-160's grammar reads them.
  assert.equal(parse('isNull (a)'), '(and (term isNull) (term a))')
  assert.deepEqual(parseFilter('in(s, "x")'), {
    kind: 'call',
    name: { text: 'in', span: { start: 0, end: 2 } },
    args: [
      { kind: 'literal', quoted: false, text: 's', span: { start: 3, end: 4 } },
      { kind: 'literal', quoted: true, text: 'x', span: { start: 6, end: 9 } },
    ],
    span: { start: 0, end: 10 },
  })
})

test('parser: spans of composite nodes cover their children', () => {
  const node = parseFilter('a = 1 OR b = 2 c')!
  assert.equal(node.kind, 'and')
  assert.deepEqual(node.span, { start: 0, end: 16 })
  assert.deepEqual(node.kind === 'and' ? node.children[0]!.span : undefined, { start: 0, end: 14 })
  assert.deepEqual(parseFilter('NOT a')!.span, { start: 0, end: 5 })
  assert.deepEqual(parseFilter('  -a = "x y"')!.span, { start: 2, end: 12 })
  // Parentheses are not part of the inner node's span.
  assert.deepEqual(parseFilter('(a AND b)')!.span, { start: 1, end: 8 })
})

test('parser: syntax errors carry their code, message, hint and span', () => {
  const cases: Array<[string, Partial<QueryIssue> & { span: { start: number, end: number } }]> = [
    // Parentheses.
    ['(a = 1', { code: 'syntax', message: 'A parenthesis is not closed.', hint: 'Add the matching ).', span: { start: 0, end: 1 } }],
    ['a AND ((b) OR c', { code: 'syntax', message: 'A parenthesis is not closed.', span: { start: 6, end: 7 } }],
    ['a = 1)', { code: 'syntax', message: 'Unmatched closing parenthesis.', hint: 'Remove it or add the matching (.', span: { start: 5, end: 6 } }],
    [')', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 0, end: 1 } }],
    ['()', { code: 'syntax', message: 'Empty parentheses.', hint: 'Put a condition inside, or remove them.', span: { start: 0, end: 2 } }],
    ['a AND ( )', { code: 'syntax', message: 'Empty parentheses.', span: { start: 6, end: 9 } }],
    // Dangling operators.
    ['a = 1 AND', { code: 'syntax', message: 'AND needs a condition after it.', span: { start: 9, end: 9 } }],
    ['(a AND)', { code: 'syntax', message: 'AND needs a condition after it.', span: { start: 6, end: 7 } }],
    ['AND a', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 0, end: 3 } }],
    ['a = 1 OR', { code: 'syntax', message: 'OR needs a condition after it.', span: { start: 8, end: 8 } }],
    ['(a OR)', { code: 'syntax', message: 'OR needs a condition after it.', span: { start: 5, end: 6 } }],
    ['OR a', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 0, end: 2 } }],
    ['a b OR', { code: 'syntax', message: 'OR needs a condition after it.', span: { start: 6, end: 6 } }],
    ['a AND OR b', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 6, end: 8 } }],
    ['NOT', { code: 'syntax', message: 'NOT needs a condition after it.', span: { start: 0, end: 3 } }],
    ['a -', { code: 'syntax', message: 'NOT needs a condition after it.', span: { start: 2, end: 3 } }],
    ['(NOT)', { code: 'syntax', message: 'NOT needs a condition after it.', span: { start: 1, end: 4 } }],
    ['NOT NOT a', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 4, end: 7 } }],
    // Comparisons.
    ['a =', { code: 'syntax', message: 'Expected a value.', hint: 'Quote text with spaces: "some text".', span: { start: 3, end: 3 } }],
    ['a = = 1', { code: 'syntax', message: 'Expected a value.', span: { start: 4, end: 5 } }],
    ['a = ()', { code: 'syntax', message: 'Empty parentheses.', span: { start: 4, end: 6 } }],
    ['a = (b = 1)', { code: 'syntax', message: 'A comparison cannot stand inside the values of another.', hint: 'Inside a = (x OR y) write values only.', span: { start: 7, end: 8 } }],
    ['a = (x, y)', { code: 'syntax', message: 'A comma outside a function call.', hint: 'Separate values with OR: status = (draft OR open).', span: { start: 6, end: 7 } }],
    ['a = (x OR f(y))', { code: 'unknown-function', message: 'Only now() can stand as a value.', span: { start: 10, end: 11 } }],
    ['a = (x OR y', { code: 'syntax', message: 'A parenthesis is not closed.', span: { start: 4, end: 5 } }],
    ['a = -b', { code: 'syntax', message: 'Expected a value.', span: { start: 4, end: 5 } }],
    ['= 1', { code: 'syntax', message: 'Expected a field, a value or a function.', span: { start: 0, end: 1 } }],
    ['a = 1 2 = = 3', { code: 'syntax', message: 'Expected a value.', span: { start: 10, end: 11 } }],
    ['"title" = 1', { code: 'syntax', message: 'A field name cannot be quoted.', hint: 'Write the field name without quotes.', span: { start: 0, end: 7 } }],
    ["'title':x", { code: 'syntax', message: 'A field name cannot be quoted.', span: { start: 0, end: 7 } }],
    ['a , b', { code: 'syntax', message: 'A comma outside a function call.', hint: 'A call has no space before its parenthesis: in(status, draft, open).', span: { start: 2, end: 3 } }],
    ['in (a, b)', { code: 'syntax', message: 'A comma outside a function call.', span: { start: 5, end: 6 } }],
    ['t > now ()', { code: 'syntax', message: 'Empty parentheses.', span: { start: 8, end: 10 } }],
    // Functions.
    ['now() > placed_at', { code: 'syntax', message: 'A function cannot stand left of a comparison.', hint: 'Put the field on the left: placed_at > now() - 7d.', span: { start: 6, end: 7 } }],
    ['isNull(a) = true', { code: 'syntax', message: 'A function cannot stand left of a comparison.', span: { start: 10, end: 11 } }],
    ['in(a, b', { code: 'syntax', message: 'A function call is not closed.', hint: 'Separate arguments with commas and end with ).', span: { start: 7, end: 7 } }],
    ['in(a b)', { code: 'syntax', message: 'A function call is not closed.', span: { start: 5, end: 6 } }],
    ['in(a,)', { code: 'syntax', message: 'Expected a value.', span: { start: 5, end: 6 } }],
    ['in(,a)', { code: 'syntax', message: 'Expected a value.', span: { start: 3, end: 4 } }],
    ['in(a, (b))', { code: 'syntax', message: 'Expected a value.', span: { start: 6, end: 7 } }],
    ['a = lower(b)', { code: 'unknown-function', message: 'Only now() can stand as a value.', hint: 'Compare with a literal, or use now() - 7d.', span: { start: 4, end: 9 } }],
    ['in(a, f(b))', { code: 'unknown-function', message: 'Only now() can stand as a value.', span: { start: 6, end: 7 } }],
    ['t > now(1)', { code: 'syntax', message: 'now() takes no arguments.', span: { start: 8, end: 9 } }],
    ['t > now(', { code: 'syntax', message: 'now() takes no arguments.', span: { start: 8, end: 8 } }],
    // Lexer errors surface through the parser unchanged.
    ['a = "x', { code: 'unterminated-string', span: { start: 4, end: 6 } }],
    ['a ! = 1', { code: 'unexpected-character', span: { start: 2, end: 3 } }],
  ]
  for (const [input, expected] of cases) {
    const issue = syntaxIssue(() => parseFilter(input))
    for (const [key, want] of Object.entries(expected)) assert.deepEqual(issue[key as keyof QueryIssue], want, `${input}: ${key}`)
    assert.ok(issue.span.start >= 0 && issue.span.start <= issue.span.end && issue.span.end <= input.length, `${input}: span inside the text`)
  }
})

test(`parser: nesting is limited to ${MAX_DEPTH} levels of parentheses`, () => {
  const nested = (depth: number): string => '('.repeat(depth) + 'a' + ')'.repeat(depth)
  assert.equal(MAX_DEPTH, 64)
  assert.equal(parse(nested(MAX_DEPTH)), '(term a)')
  assert.equal(parse(`NOT ${nested(MAX_DEPTH)} OR ${nested(MAX_DEPTH)}`), '(or (not (term a)) (term a))')
  const issue = syntaxIssue(() => parseFilter(nested(MAX_DEPTH + 1)))
  assert.deepEqual(issue, { code: 'too-deep', message: 'The filter nests deeper than 64 levels.', hint: 'Flatten the parentheses.', span: { start: MAX_DEPTH, end: MAX_DEPTH + 1 } })
  // Unclosed or not, a very deep filter is refused for its depth, never by a stack overflow.
  assert.equal(syntaxIssue(() => parseFilter('('.repeat(100_000))).code, 'too-deep')
  assert.equal(syntaxIssue(() => parseFilter('a AND ' + '(b OR '.repeat(1000) + 'c' + ')'.repeat(1000))).code, 'too-deep')
  // Long flat filters are no problem.
  const flat = Array.from({ length: 5000 }, (_, i) => `a${i} = ${i}`).join(' AND ')
  const node = parseFilter(flat)
  assert.equal(node?.kind === 'and' ? node.children.length : 0, 5000)
  assert.equal(parseFilter('NOT '.repeat(1) + 'a ' + '-b '.repeat(5000))?.kind, 'and')
})
