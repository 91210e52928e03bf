// The extension points as a third-party plugin author meets them (docs/plugins.md, "Extension
// points"): a list guard sees the list's view and a database, never the plan; a describer's
// operations reach each caller's OpenAPI document, as the describer decides for that caller; and
// every point refuses a non-function, or an addition after ready, with the same coded error.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import type { Config, ListGuardView, OperationsDescriber, PathItems } from '../../lib/index.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, qty integer NOT NULL, meta jsonb NOT NULL DEFAULT '{}', owner text NOT NULL, deleted_at timestamptz);
  INSERT INTO notes (title, qty, owner) SELECT 'note ' || n, n, 'someone' FROM generate_series(1, 20) AS n;
  CREATE TABLE secrets (id serial PRIMARY KEY, body text NOT NULL);
`)
const resources: Config['resources'] = {
  notes: {
    softDelete: 'deleted_at',
    fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', searchable: true }, qty: { type: 'integer' }, meta: { type: 'json' }, owner: { type: 'string' } },
    // An admin sees every note; anyone else the notes they own.
    access: { read: (ctx) => ctx.user.roles.includes('admin') ? true : { filter: { owner: ctx.user.id } } },
  },
  secrets: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } }, access: Object.fromEntries(['read', 'create', 'update', 'delete', 'undelete', 'export'].map((op) => [op, ['admin']])) },
}

/** Each resource the caller sees gets `GET …:stats`: the describer is asked once per caller. */
const describeStats: OperationsDescriber = (api) => {
  const paths: PathItems = {}
  for (const resource of api.resources) {
    paths[`${resource.collectionPath}:stats`] = {
      get: {
        operationId: `${resource.name}_stats`,
        tags: [resource.name],
        summary: `Statistics of ${resource.name}`,
        responses: { 200: { description: 'The statistics.', ...api.json({ type: 'object' }) }, ...api.problems(401, 404) },
      },
    }
  }
  return paths
}

const app = await buildApp({ databaseUrl, resources })
const seen: ListGuardView[] = []
app.tablegate.addListGuard(async (view) => {
  seen.push(view)
  return undefined
})
app.tablegate.addApiDescriber(describeStats)
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const user = caller(app, await bearer(app, 'user@example.com'))

async function guardedView (call: typeof admin, url: string): Promise<ListGuardView> {
  seen.length = 0
  const response = await call('GET', url)
  assert.equal(response.status, 200, JSON.stringify(response.body))
  assert.equal(seen.length, 1)
  return seen[0]!
}

test('a list guard sees the list as a view: resource, kind, filter without values, order, page size, options', async () => {
  const filter = encodeURIComponent('qty > 3 AND (title = "note*" OR NOT meta.tags : "x") AND note')
  const view = await guardedView(admin, `/api/v1/notes?filter=${filter}&order_by=${encodeURIComponent('qty desc')}&page_size=5&count=exact`)
  assert.equal(view.resource, 'notes')
  assert.equal(view.table, 'notes')
  assert.equal(view.kind, 'list')
  const field = (name: string) => ({ name, column: name })
  assert.deepEqual(view.filter, {
    kind: 'and',
    children: [
      { kind: 'compare', field: field('qty'), op: '>' },
      { kind: 'or', children: [{ kind: 'like', field: field('title') }, { kind: 'not', child: { kind: 'json-path', field: field('meta'), path: ['tags'], test: 'has', op: undefined } }] },
      { kind: 'search', fields: [field('title')] },
    ],
  })
  assert.deepEqual(view.conditions.map((c) => c.kind), ['compare', 'like', 'json-path', 'search'])
  assert.deepEqual(view.order, [{ field: field('qty'), direction: 'desc' }, { field: field('id'), direction: 'desc' }])
  assert.deepEqual([view.pageSize, view.count, view.showDeleted, view.narrowed], [5, true, false, false])
  // The plan behind it is not the guard's: none of its members, and no value of the filter.
  for (const member of ['model', 'scope', 'select', 'fetch', 'estimateKey', 'tokenBinding', 'narrowedTo', 'filterText', 'cursor']) {
    assert.equal((view as unknown as Record<string, unknown>)[member], undefined, member)
  }
  assert.doesNotMatch(JSON.stringify(view.filter), /note\*|"3"|\bx\b/)
})

test('a list guard\'s view tells a seek, a narrowed caller and shapes apart, and explains the list\'s statements', async () => {
  const seek = await guardedView(admin, '/api/v1/notes:seek?page_size=2&position=0')
  assert.equal(seek.kind, 'seek')
  assert.equal(seek.filter, undefined)
  const narrowed = await guardedView(user, '/api/v1/notes?filter=qty%20%3E%201')
  assert.equal(narrowed.narrowed, true)
  const other = await guardedView(admin, '/api/v1/notes?filter=qty%20%3E%2017')
  const same = await guardedView(admin, '/api/v1/notes?filter=qty%20%3E%202')
  assert.equal(other.shape, same.shape, 'values do not make a shape')
  assert.notEqual(other.shape, narrowed.shape, 'a row rule does')
  const explained = await same.explain()
  assert.deepEqual(explained.map((e) => e.statement), ['page', 'filtered'])
  for (const { plan } of explained) assert.equal(typeof plan['Node Type'], 'string')
  const counted = await guardedView(admin, '/api/v1/notes?count=exact')
  assert.deepEqual((await counted.explain({ preferIndexes: true })).map((e) => e.statement), ['page', 'count'])
  assert.deepEqual((await counted.explain({ preferIndexes: true, statements: ['count'] })).map((e) => e.statement), ['count'])
})

test('a plugin\'s describer adds its operations to each caller\'s OpenAPI document, for what that caller sees', async () => {
  const adminDocument = await admin('GET', '/api/openapi.json')
  assert.equal(adminDocument.status, 200)
  assert.deepEqual(Object.keys(adminDocument.body.paths).filter((p) => p.endsWith(':stats')).sort(), ['/api/v1/notes:stats', '/api/v1/secrets:stats'])
  const stats = adminDocument.body.paths['/api/v1/notes:stats'].get
  assert.equal(stats.operationId, 'notes_stats')
  assert.deepEqual(stats.responses['200'].content, { 'application/json': { schema: { type: 'object' } } })
  assert.deepEqual(stats.responses['401'], { $ref: '#/components/responses/Unauthenticated' })
  const userDocument = await user('GET', '/api/openapi.json')
  assert.equal(userDocument.status, 200)
  assert.deepEqual(Object.keys(userDocument.body.paths).filter((p) => p.endsWith(':stats')), ['/api/v1/notes:stats'])
})

test('every extension point refuses a non-function and an addition after ready with the same coded error', async () => {
  const fresh = await buildApp({ databaseUrl, resources })
  const points = {
    addWriteHook: (extension: unknown) => { fresh.tablegate.addWriteHook(extension as never) },
    addListGuard: (extension: unknown) => { fresh.tablegate.addListGuard(extension as never) },
    addApiDescriber: (extension: unknown) => { fresh.tablegate.addApiDescriber(extension as never) },
  }
  for (const [method, add] of Object.entries(points)) {
    assert.throws(() => { add({}) }, { name: 'HookRegistrationError', code: 'TG_ERR_HOOK_NOT_FUNCTION', message: new RegExp(`^${method} expects a function`) }, method)
  }
  await fresh.ready()
  for (const [method, add] of Object.entries(points)) {
    assert.throws(() => { add(async () => undefined) }, { name: 'HookRegistrationError', code: 'TG_ERR_HOOK_AFTER_READY', message: new RegExp(`^${method} after the app is ready`) }, method)
  }
})
