// The console's routes in the URL's hash (console/src/route.ts): what each hash opens, the hash of
// each route, and keys and list states that come back as they went out, whatever characters they
// hold. The browser's side of it (Back, reload): http/console-list-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { hrefOf, keyOf, parseRoute, recordHref, type Route } from '../../console/src/route.js'
import { readState, writeState, type ListState } from '../../console/src/list-state.js'

/** A route as plain data: a URLSearchParams compares equal to any other under deepEqual. */
function plain (route: Route): unknown {
  return route.kind === 'resource' ? { ...route, query: [...route.query] } : route
}

test('each hash opens its route', () => {
  for (const [hash, route] of [
    ['#/p/overview', { kind: 'page', name: 'overview' }],
    ['#/r/orders', { kind: 'resource', name: 'orders', query: [] }],
    ['#/r/orders?q=tea&f.status=%22open%22', { kind: 'resource', name: 'orders', query: [['q', 'tea'], ['f.status', '"open"']] }],
    ['#/r/orders/new', { kind: 'new', name: 'orders' }],
    ['#/r/orders/k/12', { kind: 'record', name: 'orders', key: '12' }],
    // Names and keys are decoded once: the key is left as the API's URL writes it.
    ['#/r/order%20lines/k/a%252Fb%2C2', { kind: 'record', name: 'order lines', key: 'a%2Fb,2' }],
    ['#/p/sales%2Freport', { kind: 'page', name: 'sales/report' }],
    ['#/account', { kind: 'account' }],
    ['#/forgot-password', { kind: 'forgot-password' }],
    // A reset link's token is in the URL's query, not the hash's: whatever follows "?" here is not the route's.
    ['#/reset-password?token=x', { kind: 'reset-password' }],
    ['#/verified', { kind: 'verified' }],
  ] as const) assert.deepEqual(plain(parseRoute(hash)), route, hash)
})

test('a hash that names nothing the console has opens home', () => {
  for (const hash of [
    '', '#', '#/', '#/r', '#/r/', '#/p', '#/p/', 'r/orders', '#/x/orders', '#/p/a/b',
    '#/account/x', '#/account/', '#/p/account/x', '#/reset', '#/Account',
    '#/r/orders/edit', '#/r/orders/k', '#/r/orders/k/', '#/r/orders/k/1/2', '#/r/orders/new/1',
    // Percent-encoding that does not decode, in any part.
    '#/r/%E0%A4%A', '#/r/orders/k/%', '#/p/100%',
  ]) assert.deepEqual(parseRoute(hash), { kind: 'home' }, hash)
})

test('each route\'s hash, its names percent-encoded, and no "?" after a list without state', () => {
  assert.equal(hrefOf({ kind: 'home' }), '#/')
  assert.equal(hrefOf({ kind: 'page', name: 'sales/report #2' }), '#/p/sales%2Freport%20%232')
  assert.equal(hrefOf({ kind: 'new', name: 'orders' }), '#/r/orders/new')
  assert.equal(hrefOf({ kind: 'record', name: 'orders', key: '12' }), '#/r/orders/k/12')
  assert.equal(hrefOf({ kind: 'resource', name: 'orders', query: new URLSearchParams() }), '#/r/orders')
  assert.equal(hrefOf({ kind: 'resource', name: 'orders', query: new URLSearchParams({ q: 'green tea', filter: 'id = 1' }) }), '#/r/orders?q=green+tea&filter=id+%3D+1')
})

test('every route comes back from its hash as it was', () => {
  const odd = 'a/b ?#&=%,"\'*\\ é 💡'
  const routes: Route[] = [
    { kind: 'home' },
    { kind: 'account' },
    { kind: 'forgot-password' },
    { kind: 'reset-password' },
    { kind: 'verified' },
    { kind: 'page', name: odd },
    { kind: 'new', name: odd },
    { kind: 'record', name: odd, key: odd },
    { kind: 'resource', name: odd, query: new URLSearchParams() },
    { kind: 'resource', name: 'orders', query: new URLSearchParams([['filter', `title = "${odd}"`], ['q', odd], ['f.x', odd]]) },
  ]
  for (const route of routes) assert.deepEqual(plain(parseRoute(hrefOf(route))), plain(route), hrefOf(route))
})

test('a record\'s key: each key field percent-encoded, so a comma inside a value never splits the key', () => {
  assert.equal(keyOf({ id: 12, title: 'x' }, ['id']), '12')
  assert.equal(keyOf({ a: 'x,y', b: 'p/q r' }, ['a', 'b']), 'x%2Cy,p%2Fq%20r')
  assert.equal(recordHref('orders', { id: 12 }, ['id']), '#/r/orders/k/12')
  // The route gives the key back as the API's URL takes it: /api/v1/pairs/x%2Cy,p%2Fq%20r.
  const route = parseRoute(recordHref('pairs', { a: 'x,y', b: 'p/q r' }, ['a', 'b']))
  assert.deepEqual(route, { kind: 'record', name: 'pairs', key: 'x%2Cy,p%2Fq%20r' })
})

test('a list\'s state comes back through its hash, as Back and reload bring it', () => {
  const filters = ['status', 'priority', 'rush', 'margin', 'note']
  const states: ListState[] = [
    { search: '', filter: '', chips: [], showDeleted: false, orderBy: undefined },
    {
      search: ' "0* & =#?',
      filter: 'customer.name = "A & B #1" AND total > 10.5',
      chips: [{ field: 'status', value: 'open?&#' }, { field: 'priority', value: 2 }, { field: 'rush', value: false }, { field: 'note', value: null }, { field: 'margin', value: '11.75' }],
      showDeleted: true,
      orderBy: 'total desc',
    },
  ]
  for (const state of states) {
    const route = parseRoute(hrefOf({ kind: 'resource', name: 'orders', query: writeState(state) }))
    assert.equal(route.kind, 'resource')
    assert.deepEqual(readState((route as Extract<Route, { kind: 'resource' }>).query, filters), state)
  }
  // The hashes the browser test sees in the address bar.
  const state = { search: 'tea', filter: '', chips: [{ field: 'status', value: 'open' }, { field: 'priority', value: 2 }, { field: 'rush', value: false }], showDeleted: false, orderBy: undefined }
  assert.equal(hrefOf({ kind: 'resource', name: 'orders', query: writeState(state) }), '#/r/orders?q=tea&f.status=%22open%22&f.priority=2&f.rush=false')
  assert.equal(hrefOf({ kind: 'resource', name: 'orders', query: writeState({ ...state, chips: state.chips.slice(0, 1), orderBy: 'total desc' }) }), '#/r/orders?q=tea&f.status=%22open%22&order_by=total+desc')
})
