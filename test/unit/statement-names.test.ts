// Which statements run prepared, under which name: found by their text's length, then compared.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { StatementNames } from '../../lib/db/query.js'

/** The text as compile makes it: concatenated anew each time, never the same string. */
const built = (...parts: string[]): string => parts.reduce((text, part) => text + part, '')

test('a text built again is the statement named the first time', () => {
  const names = new StatementNames()
  const first = names.statementFor(built('SELECT "a" FROM "t" WHERE ', '"id" = $1'))
  const again = names.statementFor(built('SELECT "a" FROM "t" ', 'WHERE "id" = $1'))
  assert.ok(first !== undefined)
  assert.equal(again, first)
  assert.match(first.name, /^tg_[A-Za-z0-9_-]{20}$/)
  assert.equal(first.text, 'SELECT "a" FROM "t" WHERE "id" = $1')
})

test('texts of one length are told apart by their characters', () => {
  const names = new StatementNames()
  const a = names.statementFor('SELECT "a" FROM "t" WHERE "id" = $1')
  const b = names.statementFor('SELECT "b" FROM "t" WHERE "id" = $1')
  const c = names.statementFor('SELECT "a" FROM "u" WHERE "id" = $1')
  assert.ok(a !== undefined && b !== undefined && c !== undefined)
  assert.equal(new Set([a.name, b.name, c.name]).size, 3)
  assert.equal(names.statementFor(built('SELECT "b" FROM "t"', ' WHERE "id" = $1')), b)
  assert.equal(names.statementFor(built('SELECT "a" FROM "u"', ' WHERE "id" = $1')), c)
})

test('only data statements are named, and only the first 500 texts', () => {
  const names = new StatementNames()
  assert.equal(names.statementFor('EXPLAIN SELECT 1'), undefined)
  assert.equal(names.statementFor('SET statement_timeout = 0'), undefined)
  const kept = Array.from({ length: 500 }, (_, i) => names.statementFor(`SELECT ${i}`))
  assert.ok(kept.every((named) => named !== undefined))
  assert.equal(names.statementFor('SELECT 500'), undefined)
  assert.equal(names.statementFor(built('SELECT ', '499')), kept[499])
})
