// Rule filters that traverse relations (docs/access.md "Rules"): a path in a rule walks the related
// rows as stored, not as any caller may read them. A property (fast-check): for random rule filters
// over an order's own field, its customer, the customer's region and its lines, the orders a caller
// under that rule lists over HTTP are exactly those plain SQL finds over every stored row of the
// related tables (soft-deleted ones and another tenant's included), written independently. And
// what the start refuses: a rule's bad path, and tenancies through relations that cannot hold.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, subjectOf, TEST_SECRET } from '../helpers/app.js'
import { createServer } from '../../lib/server.js'
import type { Config, ResourceConfig } from '../../lib/config/schema.js'
import { RELATIONS_FILTER_CONFIG, RELATIONS_FILTER_SCHEMA } from '../fixtures/relations-filter.js'
import { TENANCY_RESOURCES, TENANCY_ROLES, TENANCY_SCHEMA } from '../fixtures/tenancy-through.js'
import { warningsLogger } from '../helpers/warnings.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_FILTER_SCHEMA + TENANCY_SCHEMA)

/** A condition as rule filter text and as SQL over every stored row; the SQL is never NULL. */
interface Condition { readonly text: string, readonly sql: string }

const OPS = [['=', '='], ['!=', '<>'], ['<', '<'], ['>=', '>=']] as const
const viaCustomer = (where: string): string => `COALESCE(o.customer_id IN (SELECT id FROM customers WHERE ${where}), false)`
const viaLines = (where: string): string => `o.id IN (SELECT order_id FROM order_lines WHERE ${where})`

const atom: fc.Arbitrary<Condition> = fc.oneof(
  fc.tuple(fc.constantFrom('one', 'four', 'seven'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([title, [op, sqlOp]]) => ({ text: `title ${op} "${title}"`, sql: `o.title ${sqlOp} '${title}'` })),
  fc.tuple(fc.constantFrom('DE', 'FR', 'XX'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([country, [op, sqlOp]]) => ({ text: `customer.country ${op} "${country}"`, sql: viaCustomer(`country ${sqlOp} '${country}'`) })),
  // Stored rows only a rule sees: another tenant's customer (Delta, DE), a deleted one, a
  // wholesale one (a clerk reads only retail customers), a field hidden from the clerk.
  fc.constantFrom('retail', 'wholesale').map((segment) => ({ text: `customer.segment = "${segment}"`, sql: viaCustomer(`segment = '${segment}'`) })),
  fc.constant({ text: 'customer.deleted_at != null', sql: viaCustomer('deleted_at IS NOT NULL') }),
  fc.tuple(fc.integer({ min: 0, max: 6000 }), fc.constantFrom(...OPS))
    .map(([n, [op, sqlOp]]) => ({ text: `customer.credit_limit ${op} ${n}`, sql: viaCustomer(`credit_limit ${sqlOp} ${n}`) })),
  fc.constantFrom('EU', 'US').map((region) => ({
    text: `customer.region.name = "${region}"`,
    sql: viaCustomer(`region_id IN (SELECT id FROM regions WHERE name = '${region}')`),
  })),
  fc.tuple(fc.constantFrom('A', 'B', 'Z'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([sku, [op, sqlOp]]) => ({ text: `lines.sku ${op} "${sku}"`, sql: viaLines(`sku ${sqlOp} '${sku}'`) })),
  fc.constant({ text: 'lines.internal = true', sql: viaLines('internal') }),
  fc.tuple(fc.integer({ min: 0, max: 11 }), fc.constantFrom(...OPS))
    .map(([n, [op, sqlOp]]) => ({ text: `lines.quantity ${op} ${n}`, sql: viaLines(`quantity ${sqlOp} ${n}`) })),
)

const condition: fc.Arbitrary<Condition> = fc.letrec<{ node: Condition }>((tie) => ({
  node: fc.oneof({ maxDepth: 2, depthIdentifier: 'rule' },
    atom,
    fc.tuple(tie('node'), fc.constantFrom('AND', 'OR'), tie('node')).map(([a, join, b]) => ({ text: `(${a.text} ${join} ${b.text})`, sql: `(${a.sql} ${join} ${b.sql})` })),
    tie('node').map((a) => ({ text: `NOT (${a.text})`, sql: `NOT (${a.sql})` })),
  ),
})).node

// The rule is a function of the caller: each run's user gets the filter the run drew, so the
// plan (kept per caller) is made afresh for it.
const drawn = new Map<string, string>()
const resources = RELATIONS_FILTER_CONFIG.resources!
const orders = resources.orders as ResourceConfig
const app = await buildApp({
  ...RELATIONS_FILTER_CONFIG,
  databaseUrl,
  resources: {
    ...resources,
    orders: { ...orders, access: { ...orders.access, read: (ctx) => ({ filter: drawn.get(ctx.user.id) ?? 'id = 0' }) } },
  },
})

test('a rule\'s path lists exactly the orders plain SQL finds over every stored related row', async () => {
  let run = 0
  await fc.assert(fc.asyncProperty(condition, async (rule) => {
    const email = `rule${run++}@example.com`
    await createUser(app, email, 'clerk')
    const auth = await bearer(app, email)
    const call = caller(app, auth)
    drawn.set(subjectOf(auth), rule.text)
    const listed = await call('GET', '/api/v1/orders?page_size=100&order_by=id&fields=id')
    assert.equal(listed.status, 200, `${rule.text}: ${JSON.stringify(listed.body)}`)
    const expected = await withClient(databaseUrl, async (c) => (await c.query<{ id: string }>(`SELECT o.id FROM orders o WHERE o.deleted_at IS NULL AND ${rule.sql} ORDER BY o.id`)).rows)
    assert.deepEqual(listed.body.items.map((o: { id: string }) => o.id), expected.map((r) => r.id), rule.text)
  }), { numRuns: 120 })
})

test('a filter a rule function returns with a path that does not resolve is a 500 for that caller, never a row', async () => {
  const bad = await buildApp({
    ...RELATIONS_FILTER_CONFIG,
    databaseUrl,
    resources: { ...resources, orders: { ...orders, access: { read: () => ({ filter: 'custmer.country = "DE"' }) } } },
  })
  await createUser(bad, 'admin@example.com', 'admin')
  const answer = await caller(bad, await bearer(bad, 'admin@example.com'))('GET', '/api/v1/orders')
  assert.equal(answer.status, 500)
  assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.type, 'urn:service:problem:internal-error')
  assert.doesNotMatch(JSON.stringify(answer.body), /custmer|country/)
})

/** The start's error message, or 'started'. */
async function start (config: Config): Promise<string> {
  try {
    const app = await createServer({ databaseUrl, authSecret: TEST_SECRET, ...config })
    await app.ready()
    await app.close()
  } catch (err) {
    return (err as Error).message
  }
  return 'started'
}

test('the start refuses a static rule\'s path that does not resolve, naming the rule, with the nearest path', async () => {
  const message = await start({ ...RELATIONS_FILTER_CONFIG, resources: { ...resources, orders: { ...orders, access: { read: { filter: 'customer.regio.name = "EU"' } } } } })
  assert.match(message, /^invalid config: config\.resources\.orders\.access\.read\.filter: access filter of orders 'customer\.regio\.name = "EU"': There is no field 'customer\.regio' to filter on\. Did you mean 'customer\.region\.name'\?$/)
  const deep = await start({ ...RELATIONS_FILTER_CONFIG, resources: { ...resources, orders: { ...orders, access: { read: { filter: 'customer.region.customers.name = "x"' } } } } })
  assert.match(deep, /config\.resources\.orders\.access\.read\.filter: .*A filter follows at most 2 relations\./)
})

test('the start refuses a tenancy through relations that cannot hold, naming the config path', async () => {
  const tasks = TENANCY_RESOURCES.tasks!
  const through = (resource: string, path: string, more: Record<string, ResourceConfig> = {}): Config => ({
    ...TENANCY_ROLES,
    resources: { ...TENANCY_RESOURCES, [resource]: { ...TENANCY_RESOURCES[resource]!, tenant: { through: path } }, ...more },
  })
  assert.equal(await start(through('tasks', 'projet')), "config.resources.tasks.tenant.through: 'projet': tasks has no relation 'projet' (did you mean 'project'?)")
  assert.equal(await start(through('tasks', 'comments')), "config.resources.tasks.tenant.through: 'comments': tasks.comments is a to-many relation: a tenant is read through to-one relations (a child's reference to its parent)")
  assert.equal(await start(through('task_labels', 'label')), "config.resources.task_labels.tenant.through: 'label' leads to labels, which is not kept per tenant: give labels a tenant column (tenant: 'org_id') or a tenant through its own parent")
  assert.equal(await start(through('comments', 'task', { tasks: { ...tasks, tenant: { through: 'comments_x' } } })),
    "config.resources.tasks.tenant.through: 'comments_x': tasks has no relation 'comments_x' (its to-one relations: project)")
  // comments through their task, and tasks through a to-one back to a comment: round in a circle.
  const circle = through('comments', 'task', {
    tasks: { ...tasks, tenant: { through: 'first_comment' }, fields: { ...tasks.fields, first_comment_id: { type: 'integer', references: 'comments' } }, relations: { ...tasks.relations, first_comment: { field: 'first_comment_id' } } },
  })
  assert.match(await start(circle), /^config\.resources\.(tasks|comments)\.tenant\.through: tenants through relations go round in a circle: (tasks → comments → tasks|comments → tasks → comments)$/)
  // Three relations in all: a comment's label link through the comment's task's project.
  const three = through('task_labels', 'task', { tasks: { ...tasks, tenant: { through: 'project' } }, comments: { ...TENANCY_RESOURCES.comments!, tenant: { through: 'task.project' } } })
  assert.equal(await start(three), 'started')
  const tooFar = {
    ...TENANCY_ROLES,
    resources: {
      ...TENANCY_RESOURCES,
      task_labels: {
        ...TENANCY_RESOURCES.task_labels!,
        fields: { ...TENANCY_RESOURCES.task_labels!.fields, comment_id: { type: 'integer', references: 'comments' } },
        relations: { ...TENANCY_RESOURCES.task_labels!.relations, comment: { field: 'comment_id' } },
        tenant: { through: 'comment' },
      },
    },
  } satisfies Config
  assert.equal(await start(tooFar), "config.resources.task_labels.tenant.through: 'comment' reaches the tenant column through 3 relations (comment.task.project): at most 2")
})

test('a tenancy through relations warns where the parents\' tenant column has no index, as a relation\'s column does', async () => {
  await runSql(databaseUrl, 'DROP INDEX projects_org_id_idx')
  const warnings: string[] = []
  const app = await createServer({ databaseUrl, authSecret: TEST_SECRET, ...TENANCY_ROLES, resources: TENANCY_RESOURCES }, { loggerInstance: warningsLogger(warnings) })
  await app.close()
  assert.deepEqual(warnings.filter((w) => w.includes('org_id')), [
    'config.resources.tasks.tenant.through, config.resources.comments.tenant.through, config.resources.task_labels.tenant.through: following the relation reads table projects by column org_id, and no index starts with it, so each such read scans the table. Create one: CREATE INDEX ON "projects" ("org_id")',
  ])
})
