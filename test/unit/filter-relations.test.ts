// The filter checker and compiler across relations, against hand-built models: paths through at
// most two relations the caller may follow, refusals worded as for an unknown field where the
// caller may not follow or read, json paths kept where the first name is a json field, the SQL's
// shape (EXISTS, distinct aliases, the target's scope), and what estimates and shapes make of it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildModels } from '../../lib/model/build.js'
import type { ResourceModel } from '../../lib/model/types.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter } from '../../lib/query/filter/checker.js'
import { filterStructure, traverses, type CheckedFilter, type RelatedScope } from '../../lib/query/filter/checked.js'
import type { PathHop, RelationGraph } from '../../lib/query/paths.js'
import { withScopes } from '../../lib/plan/graph.js'
import { queryModel } from '../../lib/query/query-model.js'
import { compileFilter } from '../../lib/sql/filter.js'
import { compile } from '../../lib/sql/sql.js'
import { sampleMatcher } from '../../lib/read/estimate/filter-evaluator.js'

const MODELS = buildModels({
  regions: { fields: { id: { type: 'bigint' }, name: { type: 'string' } }, relations: { customers: { resource: 'customers', by: 'region_id' } } },
  customers: {
    tenant: 'tenant_id',
    softDelete: 'deleted_at',
    fields: { id: { type: 'bigint' }, country: { type: 'string' }, segment: { type: 'string' }, meta: { type: 'json' }, region_id: { type: 'bigint', references: 'regions' }, secret: { type: 'string' } },
    relations: { region: { field: 'region_id' } },
  },
  orders: {
    fields: { id: { type: 'bigint' }, title: { type: 'string' }, meta: { type: 'json' }, customer_id: { type: 'bigint', references: 'customers' } },
    relations: { customer: { field: 'customer_id' }, lines: { resource: 'order_lines', by: 'order_id' } },
  },
  order_lines: { fields: { id: { type: 'bigint' }, order_id: { type: 'bigint', references: 'orders' }, sku: { type: 'string' } } },
})
const model = (name: string): ResourceModel => MODELS.get(name)!
const readable = (name: string, hidden: readonly string[] = []) => queryModel(name, [...model(name).fields.values()].filter((f) => !hidden.includes(f.name)), true)
const ORDERS = readable('orders')

/** Everything followable; customers without `secret`. */
function relations (follow = true): RelationGraph {
  const side = (from: string, name: string, hidden: readonly string[] = []): [string, PathHop] => {
    const relation = model(from).relations.get(name)!
    return [name, { relation, target: model(relation.target), query: readable(relation.target, hidden) }]
  }
  const all: Record<string, Map<string, PathHop>> = {
    orders: new Map(follow ? [side('orders', 'customer', ['secret']), side('orders', 'lines')] : []),
    customers: new Map([side('customers', 'region')]),
    regions: new Map([side('regions', 'customers', ['secret'])]),
  }
  return (resource: string) => all[resource] ?? new Map()
}

/** The caller's rows of each target, as the plan attaches them: customers narrowed to `customers` when given. */
function scoped (filter: CheckedFilter, customers: RelatedScope = { kind: 'caller', tenant: 't1', rows: undefined }): CheckedFilter {
  return withScopes(filter, (target) => target.name === 'customers' ? customers : { kind: 'caller', tenant: 't1', rows: undefined })
}

function check (text: string, graph = relations()) {
  return checkFilter(parseFilter(text), ORDERS, graph)
}

function show (f: CheckedFilter): string {
  switch (f.kind) {
    case 'and':
    case 'or': return `(${f.kind} ${f.children.map(show).join(' ')})`
    case 'not': return `(not ${show(f.child)})`
    case 'related': return `(${f.relation.name}→${f.target.name} ${show(f.condition)})`
    case 'compare': return `(${f.op} ${f.field.name} ${JSON.stringify(f.value.kind === 'value' ? f.value.value : 'now')})`
    case 'json-path': return `(json ${f.field.name} ${f.path.join('.')})`
    case 'like': return `(like ${f.field.name} ${JSON.stringify(f.pattern)})`
    case 'null': return `(${f.negated ? 'not-null' : 'null'} ${f.field.name})`
    case 'in': return `(in ${f.field.name} ${f.values.length})`
    default: return `(${f.kind})`
  }
}

function ok (text: string, graph = relations()): CheckedFilter {
  const result = check(text, graph)
  if (!result.ok) assert.fail(`${text}: ${JSON.stringify(result.issues)}`)
  return result.filter!
}

function issues (text: string, graph = relations()) {
  const result = check(text, graph)
  if (result.ok) assert.fail(`${text} was accepted`)
  return result.issues
}

/** A row rule on customers: `segment = retail`. */
const RETAIL = (ok('customer.segment = retail') as Extract<CheckedFilter, { kind: 'related' }>).condition

test('paths through relations become related conditions, one per condition, nested per level', () => {
  assert.equal(show(ok('customer.country = DE')), '(customer→customers (= country "DE"))')
  assert.equal(show(ok('lines.sku:x AND NOT lines.sku = y')), '(and (lines→order_lines (like sku "%x%")) (not (lines→order_lines (= sku "y"))))')
  assert.equal(show(ok('customer.region.name = EU')), '(customer→customers (region→regions (= name "EU")))')
  assert.equal(show(ok('isNull(customer.country) OR in(lines.sku, a, b)')), '(or (customer→customers (null country)) (lines→order_lines (in sku 2)))')
  // A json field of the target, and the resource's own json field: both stay json paths.
  assert.equal(show(ok('customer.meta.color = red')), '(customer→customers (json meta color))')
  assert.equal(show(ok('meta.customer = red')), '(json meta customer)')
  assert.equal(show(ok('in(customer.meta.size, 1, 2)')), '(customer→customers (or (json meta size) (json meta size)))')
})

test('without the relation, or without the field on its target, the issue is word for word an unknown field\'s', () => {
  const unfollowable = issues('customer.country = DE', relations(false))
  const unknown = issues('customex.country = DE', relations(false))
  assert.deepEqual(unfollowable, [{ ...unknown[0], message: "There is no field 'customer' to filter on." }])
  assert.deepEqual(unfollowable, issues('customer.country = DE', () => new Map()))
  const hidden = issues('customer.secret = x')
  const missing = issues('customer.secrex = x')
  assert.deepEqual(hidden, [{ ...missing[0], message: "There is no field 'customer.secret' to filter on." }])
  assert.doesNotMatch(JSON.stringify(issues('customer.secre = x')), /secret/)
  // A mistyped relation is suggested to a caller who may follow it, never to one who may not: the
  // nearest whole path that would work.
  assert.equal(issues('custome.country = DE')[0]!.hint, "Did you mean 'customer.country'?")
  assert.equal(issues('custome.country = DE', relations(false))[0]!.hint, 'Fields you can filter on: id, title, meta, customer_id.')
  assert.equal(issues('customer.regio.name = EU')[0]!.hint, "Did you mean 'customer.region.name'?")
  // Hidden at the second level, and a relation of the target the caller may not follow.
  assert.equal(issues('customer.region.customers.secret = x')[0]!.code, 'invalid-path')
  assert.equal(issues('lines.order.id = 1')[0]!.message, "There is no field 'lines.order' to filter on.")
})

test('a relation alone, ending a path, or a third relation is refused with its span', () => {
  assert.deepEqual(issues('customer = 1'), [{ code: 'invalid-path', message: "'customer' is a relation: a filter compares one of its fields.", hint: 'Name a field of it: customer.id.', span: { start: 0, end: 8 } }])
  assert.deepEqual(issues('isNull(customer.region)')[0]!.span, { start: 16, end: 22 })
  assert.deepEqual(issues('customer.region.customers.country = x')[0], { code: 'invalid-path', message: 'A filter follows at most 2 relations.', hint: 'Filter on a field of customer.region.', span: { start: 0, end: 25 } })
  assert.deepEqual(issues('customer.country.x = 1')[0]!.message, "Field 'customer.country' is a string: it has no keys to traverse.")
  assert.equal(issues('lines.sku')[0]!.hint, 'Compare it, as in lines.sku = "text", or test it: lines.sku:*. To search for text with a dot, quote it: "v1.2".')
})

test('the SQL: EXISTS over the target under its own alias, linked, scoped (tenant, live, row rule), values bound', () => {
  const filter = scoped(ok('customer.region.name = EU AND NOT lines.sku = x'), { kind: 'caller', tenant: 't1', rows: RETAIL })
  const { text, values } = compile(compileFilter(model('orders'), filter))
  assert.equal(text, '(EXISTS (SELECT 1 FROM "customers" AS "__related_1" WHERE "__related_1"."id" = "orders"."customer_id" AND "__related_1"."tenant_id" = $1 AND "__related_1"."deleted_at" IS NULL AND "__related_1"."segment" = $2 ' +
    'AND EXISTS (SELECT 1 FROM "regions" AS "__related_2" WHERE "__related_2"."id" = "__related_1"."region_id" AND "__related_2"."name" = $3)) ' +
    'AND NOT EXISTS (SELECT 1 FROM "order_lines" AS "__related_1" WHERE "__related_1"."order_id" = "orders"."id" AND "__related_1"."sku" = $4))')
  assert.deepEqual(values, ['t1', 'retail', 'EU', 'x'])
})

test('a related condition: never evaluated on a sample, part of the shape with its row rule, and traversal is seen', () => {
  const filter = scoped(ok('customer.country = DE'))
  assert.equal(sampleMatcher(filter, Date.now()), undefined)
  assert.equal(sampleMatcher(ok('title = a AND lines.sku = b'), Date.now()), undefined)
  assert.equal(traverses(filter), true)
  assert.equal(traverses(ok('title = a')), false)
  const narrowed = scoped(ok('customer.country = DE'), { kind: 'caller', tenant: 't1', rows: RETAIL })
  assert.notEqual(filterStructure(narrowed), filterStructure(filter))
  assert.equal(filterStructure(scoped(ok('customer.country = FR'))), filterStructure(filter))
})
