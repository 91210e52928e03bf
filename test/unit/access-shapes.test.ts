// Callers who read the same fields share their plans' field lists and query model: 10,000 callers
// of one resource hold one of each, not 10,000 (issue 17's memory target). Within a plan, operations
// a rule narrows alike share one access, and list items' permissions are the same for everyone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModels } from '../../lib/model/build.js'
import { AccessResolver, callerAccess } from '../../lib/access/resolve.js'
import { RuleFilters } from '../../lib/access/row-filter.js'
import { rowPermissions } from '../../lib/read/permissions.js'

const models = buildModels({
  notes: {
    fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, secret: { type: 'string' } },
    access: { read: (ctx) => ({ filter: { title: ctx.user.id } }), fields: { secret: { read: ['admin'], write: ['admin'] } } },
  },
  owned: {
    fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } },
    access: {
      read: (ctx) => ({ filter: { title: ctx.user.id } }),
      update: (ctx) => ({ filter: { title: ctx.user.id } }),
      delete: (ctx) => ({ filter: `title = "${ctx.user.id}" AND id > 1` }),
    },
  },
})
const resolver = new AccessResolver(models, { bundles: undefined, defaultAccess: undefined, trigram: false, ruleFilters: new RuleFilters(models) })
const planOf = (id: string, roles: string[], resource = 'notes') => callerAccess(resolver, { user: { id, roles } })(resource)

test('callers who read the same fields share field lists and query model; their row filters stay their own', () => {
  const ann = planOf('ann', ['user'])
  const bob = planOf('bob', ['user'])
  assert.notEqual(ann, bob)
  assert.equal(ann.readable, bob.readable)
  assert.equal(ann.writable, bob.writable)
  assert.equal(ann.query, bob.query)
  assert.notDeepEqual(ann.operations.read, bob.operations.read)
  assert.deepEqual(ann.readable.map((f) => f.name), ['id', 'title'])

  const admin = planOf('eve', ['admin'])
  assert.notEqual(admin.readable, ann.readable)
  assert.deepEqual(admin.readable.map((f) => f.name), ['id', 'title', 'secret'])
  assert.equal(admin.query.filterable.has('secret'), true)
  assert.equal(ann.query.filterable.has('secret'), false)
})

test('a rule that narrows several operations alike holds its filter once; list items\' permissions are shared by all callers', () => {
  const ann = planOf('ann', ['user'], 'owned')
  const bob = planOf('bob', ['user'], 'owned')
  assert.equal(ann.operations.update, ann.operations.read)
  assert.notEqual(ann.operations.delete, ann.operations.read)
  assert.equal(ann.operations.undelete, ann.operations.delete)
  assert.notEqual(bob.operations.read, ann.operations.read)
  assert.notDeepEqual(bob.operations.read, ann.operations.read)

  const model = models.get('owned')!
  const annPermissions = rowPermissions(model, ann.permissions.list)({ id: 2, title: 'ann', __can_delete: true })
  const bobPermissions = rowPermissions(model, bob.permissions.list)({ id: 2, title: 'bob', __can_delete: true })
  assert.equal(annPermissions, bobPermissions)
  assert.deepEqual(annPermissions, { object: { update: true, delete: true }, json: '{"update":true,"delete":true}' })
  assert.deepEqual(rowPermissions(model, ann.permissions.list)({ id: 1, title: 'ann', __can_delete: false }), { object: { update: true, delete: false }, json: '{"update":true,"delete":false}' })
})
