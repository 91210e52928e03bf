// CHECK constraints as PostgreSQL writes them back, read into field facts (lib/init/check.ts):
// each shape `init` turns into options, and the shapes it must leave as comments.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readCheck } from '../../lib/init/check.js'

test('IN lists, = ANY arrays (with casts), bounds, BETWEEN and domains become facts', () => {
  assert.deepEqual(readCheck("CHECK ((status = ANY (ARRAY['draft'::text, 'it''s, (odd)'::text])))"),
    { facts: [{ kind: 'enum', column: 'status', values: ['draft', "it's, (odd)"] }], understood: true })
  assert.deepEqual(readCheck("CHECK (((tier)::text = ANY ((ARRAY['gold'::character varying, 'silver'::character varying])::text[])))").facts,
    [{ kind: 'enum', column: 'tier', values: ['gold', 'silver'] }])
  assert.deepEqual(readCheck('CHECK ((priority = ANY (ARRAY[1, 2, 3])))').facts, [{ kind: 'enum', column: 'priority', values: [1, 2, 3] }])
  assert.deepEqual(readCheck("CHECK (((qty >= '-5'::integer) AND (qty <= 1000)))"), {
    facts: [{ kind: 'minimum', column: 'qty', value: -5, exclusive: false }, { kind: 'maximum', column: 'qty', value: 1000, exclusive: false }],
    understood: true,
  })
  assert.deepEqual(readCheck('CHECK (((0)::numeric < price)) NOT VALID').facts, [{ kind: 'minimum', column: 'price', value: 0, exclusive: true }])
  assert.deepEqual(readCheck('CHECK (((VALUE >= 1.5) AND (VALUE <= (10)::double precision)))').facts,
    [{ kind: 'minimum', column: 'value', value: 1.5, exclusive: false }, { kind: 'maximum', column: 'value', value: 10, exclusive: false }])
  // Cast to a whole number (a domain over integer is): marked, for the field type to judge.
  assert.deepEqual(readCheck('CHECK (((VALUE)::integer <= 10))').facts, [{ kind: 'maximum', column: 'value', value: 10, exclusive: false, rounded: true }])
  assert.deepEqual(readCheck('CHECK (("Rank" >= 1))').facts, [{ kind: 'minimum', column: 'Rank', value: 1, exclusive: false }])
})

test('anything else is not understood, and no fact is drawn from it', () => {
  for (const definition of [
    'CHECK (((a > 0) OR (b > 0)))',
    'CHECK ((NOT (a > 5)))',
    'CHECK ((lower(code) = ANY (ARRAY[\'a\'::text])))',
    'CHECK ((ends_at > starts_at))',
    'CHECK ((code <> \'ZZZ\'::text))',
    "CHECK ((code ~ '^[A-Z]'::text))",
    "CHECK ((code = E'a\\\\b'::text))",
    'CHECK ((a IS NOT NULL))',
    'CHECK ((char_length(name) <= 10))',
    'UNIQUE (a)',
    'CHECK (((a >= 1)',
  ]) {
    assert.deepEqual(readCheck(definition), { facts: [], understood: false }, definition)
  }
})

test('in an AND chain, the parts read become facts and the rest is marked not understood', () => {
  assert.deepEqual(readCheck("CHECK (((qty >= 0) AND (code ~ 'x'::text) AND (qty IS NOT NULL)))"),
    { facts: [{ kind: 'minimum', column: 'qty', value: 0, exclusive: false }], understood: false })
})
