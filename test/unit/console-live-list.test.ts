// A list page kept up to date by the change feed (console/src/live-list.ts): what each change does
// to the page, and that a change seen twice does nothing more. In a browser:
// test/http/console-changes-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { applyChange, freshLabel, type LivePage } from '../../console/src/live-list.js'
import type { Change, Item } from '../../console/src/change.js'

const keyOf = (item: Item): string => String(item.id)
const row = (id: number, title = `r${id}`): Item => ({ id: String(id), title })
const PAGE: LivePage = { items: [row(1), row(2), row(3)], fresh: new Set() }
const apply = (changes: readonly Change[], page = PAGE, showDeleted = false): LivePage =>
  changes.reduce((on, change) => applyChange(on, change, keyOf, showDeleted).page, page)
const titles = (page: LivePage): string[] => page.items.map((item) => String(item.title))

test('a record on the page changed, created again or entered again is replaced where it stands', () => {
  for (const type of ['updated', 'created', 'entered'] as const) {
    assert.deepEqual(titles(apply([{ type, key: '2', record: row(2, 'new') }])), ['r1', 'new', 'r3'], type)
  }
})

test('a record new to the list is counted, once, and the page stays as it was', () => {
  const after = apply([
    { type: 'created', key: '9', record: row(9) },
    { type: 'entered', key: '8', record: row(8) },
    { type: 'created', key: '9', record: row(9, 'again') },
    { type: 'updated', key: '8', record: row(8, 'changed') },
  ])
  assert.deepEqual(titles(after), ['r1', 'r2', 'r3'])
  assert.deepEqual([...after.fresh], ['9', '8'])
  // An update of a record neither on the page nor new is another page's.
  assert.equal(apply([{ type: 'updated', key: '7', record: row(7) }]), PAGE)
})

test('a record that left or was deleted goes from the page, and from the count of new ones', () => {
  for (const type of ['left', 'deleted'] as const) {
    assert.deepEqual(titles(apply([{ type, key: '2' }])), ['r1', 'r3'], type)
    const counted = apply([{ type: 'created', key: '9', record: row(9) }, { type, key: '9' }])
    assert.deepEqual(counted.fresh.size, 0, type)
    assert.equal(apply([{ type, key: '7' }]), PAGE, `${type}: not on the page`)
  }
})

test('every change seen twice leaves the page as once: the feed starts before the list is read', () => {
  const changes: Change[] = [
    { type: 'updated', key: '1', record: row(1, 'one') },
    { type: 'created', key: '9', record: row(9) },
    { type: 'left', key: '2' },
    { type: 'deleted', key: '3' },
    { type: 'entered', key: '8', record: row(8) },
  ]
  const once = apply(changes)
  assert.deepEqual(apply(changes, once), once)
  assert.deepEqual(titles(once), ['one'])
  assert.deepEqual([...once.fresh].sort(), ['8', '9'])
})

test('a record deleted from a list that shows deleted records too is read again, not dropped', () => {
  const applied = applyChange(PAGE, { type: 'deleted', key: '2' }, keyOf, true)
  assert.deepEqual(applied, { page: PAGE, reread: '2' })
  // One that left the list's filter goes all the same; one not on the page is nobody's business.
  assert.deepEqual(titles(applyChange(PAGE, { type: 'left', key: '2' }, keyOf, true).page), ['r1', 'r3'])
  assert.deepEqual(applyChange(PAGE, { type: 'deleted', key: '7' }, keyOf, true), { page: PAGE })
})

test('the notice counts in words', () => {
  assert.deepEqual([1, 2, 12].map(freshLabel), ['1 new record', '2 new records', '12 new records'])
})
