import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compile, quoteIdent, sql } from '../../lib/sql/sql.js'

test('values become numbered parameters, never text', () => {
  const evil = "x'; DROP TABLE users; --"
  assert.deepEqual(compile(sql`SELECT * FROM t WHERE a = ${evil} AND b = ${2}`), {
    text: 'SELECT * FROM t WHERE a = $1 AND b = $2',
    values: [evil, 2],
  })
})

test('nested fragments are inlined and numbered in order', () => {
  const where = sql`b = ${'two'}`
  assert.deepEqual(compile(sql`SELECT ${1} FROM t WHERE ${where} AND c = ${3}`), {
    text: 'SELECT $1 FROM t WHERE b = $2 AND c = $3',
    values: [1, 'two', 3],
  })
})

test('identifiers are always quoted, qualified and escaped', () => {
  assert.equal(compile(sql.ident('orders')).text, '"orders"')
  assert.equal(compile(sql.ident('auth', 'user')).text, '"auth"."user"')
  assert.equal(compile(sql.ident(undefined, 'user')).text, '"user"')
  assert.equal(quoteIdent('we"ird'), '"we""ird"')
  assert.throws(() => quoteIdent(''))
  assert.throws(() => quoteIdent('a\0b'))
})

test('join separates fragments; an empty join is empty', () => {
  const cols = sql.join([sql.ident('a'), sql`${'lit'}`, sql.ident('b')])
  assert.deepEqual(compile(sql`SELECT ${cols}`), { text: 'SELECT "a", $1, "b"', values: ['lit'] })
  assert.deepEqual(compile(sql`SELECT 1${sql.join([])}`), { text: 'SELECT 1', values: [] })
  assert.deepEqual(compile(sql.join([sql`a = ${1}`, sql`b = ${2}`], sql` ${sql.keyword('AND')} `)), { text: 'a = $1 AND b = $2', values: [1, 2] })
})

test('an integer written into the text is a non-negative safe integer, or refused', () => {
  assert.deepEqual(compile(sql`SELECT 1 LIMIT ${sql.int(51)} OFFSET ${0}`), { text: 'SELECT 1 LIMIT 51 OFFSET $1', values: [0] })
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '5' as unknown as number]) {
    assert.throws(() => sql.int(bad), /not a non-negative integer/, String(bad))
  }
})
