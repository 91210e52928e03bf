// A move on the reorder board as batch updates (console/src/reorder.ts): the cards keep the
// positions they had between them, so a move writes only the cards between its two ends; a board
// whose positions say no order is numbered 1, 2, 3. The board in chromium: http/console-pages-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { batchKey, moved, positionsOf, reorderOps, type Row } from '../../console/src/reorder.js'

const card = (id: number, position: unknown): Row => ({ id, position, etag: `"e${id}"` })
const ids = (rows: readonly Row[]): unknown[] => rows.map((row) => row.id)

test('a move takes a card out and puts it in at its new place, leaving the board it was given as it was', () => {
  const board = ['a', 'b', 'c', 'd']
  assert.deepEqual(moved(board, 3, 0), ['d', 'a', 'b', 'c'])
  assert.deepEqual(moved(board, 0, 3), ['b', 'c', 'd', 'a'])
  assert.deepEqual(moved(board, 1, 2), ['a', 'c', 'b', 'd'])
  assert.deepEqual(moved(board, 2, 2), board)
  // A place past the end is the end; a card that is not there moves nothing.
  assert.deepEqual(moved(board, 0, 9), ['b', 'c', 'd', 'a'])
  assert.deepEqual(moved(board, 9, 0), board)
  assert.deepEqual(board, ['a', 'b', 'c', 'd'])
  assert.deepEqual(moved([], 0, 0), [])
})

test('positions: the cards\' own values where they rise, else 1, 2, 3 (as text for a bigint field)', () => {
  const rows = (...values: unknown[]): Row[] => values.map((value, i) => card(i + 1, value))
  assert.deepEqual(positionsOf(rows(10, 20, 50), 'position'), [10, 20, 50])
  assert.deepEqual(positionsOf(rows(-3, 0, 7), 'position'), [-3, 0, 7])
  assert.deepEqual(positionsOf(rows('10', '20'), 'position'), ['10', '20'])
  for (const values of [[1, 1, 2], [3, 2, 1], [1, null, 3], [1, undefined, 3], [1, 1.5, 3], [1, 'x', 3], [1, true, 3]]) {
    assert.deepEqual(positionsOf(rows(...values), 'position'), [1, 2, 3], JSON.stringify(values))
  }
  assert.deepEqual(positionsOf(rows('2', '1'), 'position'), ['1', '2'])
  // Past 2^53 a number cannot tell neighbours apart.
  assert.deepEqual(positionsOf(rows('1', '9007199254740993'), 'position'), ['1', '2'])
  assert.deepEqual(positionsOf([], 'position'), [])
})

test('a key for a batch operation: its one value, or its parts in key order', () => {
  assert.equal(batchKey({ id: 7, a: 1 }, ['id']), 7)
  assert.deepEqual(batchKey({ a: 'x', b: 2, c: 3 }, ['b', 'a']), [2, 'x'])
})

test('a move writes only the cards between its ends, each with the position its place had and its own ETag', () => {
  const before = [card(1, 10), card(2, 20), card(3, 50), card(4, 60)]
  // The third card up one place: the first and the last keep theirs.
  const { ops, rows } = reorderOps('tasks', ['id'], 'position', before, moved(before, 2, 1))
  assert.deepEqual(ops, [
    { op: 'update', resource: 'tasks', key: 3, etag: '"e3"', data: { position: 20 } },
    { op: 'update', resource: 'tasks', key: 2, etag: '"e2"', data: { position: 50 } },
  ])
  assert.deepEqual(ids(rows), [1, 3, 2, 4])
  assert.deepEqual(rows.map((row) => row.position), [10, 20, 50, 60])
  // The cards that keep their place are the same objects; the moved ones are copies.
  assert.equal(rows[0], before[0])
  assert.deepEqual(before.map((row) => row.position), [10, 20, 50, 60])

  // The last card to the top moves every card.
  assert.deepEqual(reorderOps('tasks', ['id'], 'position', before, moved(before, 3, 0)).ops.map((op) => [op.key, op.data.position]), [[4, 10], [1, 20], [2, 50], [3, 60]])
  // No move, no write.
  assert.deepEqual(reorderOps('tasks', ['id'], 'position', before, before).ops, [])
})

test('a board with no order in its positions is numbered from 1, each card whose value changes written', () => {
  const before = [card(1, 0), card(2, 0), card(3, 0)]
  const { ops, rows } = reorderOps('tasks', ['id'], 'position', before, moved(before, 0, 2))
  assert.deepEqual(ops.map((op) => [op.key, op.data]), [[2, { position: 1 }], [3, { position: 2 }], [1, { position: 3 }]])
  assert.deepEqual(ids(rows), [2, 3, 1])
  // A card that already holds its new number is left alone.
  const gaps = [card(1, 1), card(2, null), card(3, 3)]
  assert.deepEqual(reorderOps('tasks', ['id'], 'position', gaps, gaps).ops.map((op) => [op.key, op.data]), [[2, { position: 2 }]])
})

test('bigint positions stay text, a text value equal to its number is no change, composite keys go as arrays', () => {
  const before: Row[] = [{ a: 'x', b: 1, position: '100', etag: 'e1' }, { a: 'x', b: 2, position: '200', etag: 'e2' }]
  const { ops } = reorderOps('pairs', ['a', 'b'], 'position', before, moved(before, 1, 0))
  assert.deepEqual(ops, [
    { op: 'update', resource: 'pairs', key: ['x', 2], etag: 'e2', data: { position: '100' } },
    { op: 'update', resource: 'pairs', key: ['x', 1], etag: 'e1', data: { position: '200' } },
  ])
  // Renumbered 1, 2: the second card's '2' already says 2.
  const mixed: Row[] = [{ id: 1, position: 2, etag: 'e1' }, { id: 2, position: '2', etag: 'e2' }]
  assert.deepEqual(reorderOps('tasks', ['id'], 'position', mixed, mixed).ops.map((op) => [op.key, op.data]), [[1, { position: 1 }]])
})
