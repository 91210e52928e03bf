// Callers who read the same fields share their plans' field lists and query model: 10,000 callers
// of one resource hold one of each, not 10,000 (issue 17's memory target).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModels } from '../../lib/model/build.js'
import { AccessResolver, callerAccess } from '../../lib/access/resolve.js'
import { RuleFilters } from '../../lib/access/row-filter.js'

const models = buildModels({
  notes: {
    fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, secret: { type: 'string' } },
    access: { read: (ctx) => ({ filter: { title: ctx.user.id } }), fields: { secret: { read: ['admin'], write: ['admin'] } } },
  },
})
const resolver = new AccessResolver(models, { bundles: undefined, defaultAccess: undefined, trigram: false, ruleFilters: new RuleFilters() })
const planOf = (id: string, roles: string[]) => callerAccess(resolver, { user: { id, roles } })('notes')

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
