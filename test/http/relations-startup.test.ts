// Every mistake in a resource's `relations` fails the real start with one line naming its path
// (with a did-you-mean where a name was mistyped); a relation whose foreign key has no index is a
// startup warning naming the index to create.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { createServer } from '../../lib/server.js'
import { TEST_SECRET } from '../helpers/app.js'
import { auditLog } from '../../lib/index.js'
import type { Config, ResourceConfig } from '../../lib/config/schema.js'
import { RELATIONS_RESOURCES, RELATIONS_ROLES, RELATIONS_SCHEMA } from '../fixtures/relations.js'
import { warningsLogger } from '../helpers/warnings.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_SCHEMA + `
  CREATE TABLE bays (region text NOT NULL, number integer NOT NULL, PRIMARY KEY (region, number));
`)


/** The start's error message, or 'started' (then its warnings are in `warnings`). */
async function start (resources: Config['resources'], warnings: string[] = [], config: Config = {}): Promise<string> {
  try {
    const app = await createServer({ databaseUrl, authSecret: TEST_SECRET, roles: RELATIONS_ROLES, resources, ...config }, { loggerInstance: warningsLogger(warnings) })
    await app.ready()
    await app.close()
  } catch (err) {
    return (err as Error).message
  }
  return 'started'
}

const { customers, orders, order_lines: lines } = RELATIONS_RESOURCES
const id = { type: 'bigint', readOnly: true, dbDefault: true } as const
type Relations = NonNullable<ResourceConfig['relations']>

/** The fixture's three resources with orders' relations replaced by `relations`. */
function ordersWith (relations: Relations, more: Partial<ResourceConfig> = {}): Config['resources'] {
  return { customers, orders: { ...orders, ...more, relations }, order_lines: lines }
}

test('the fixture\'s relations start, with no warning: every foreign key has an index', async () => {
  const warnings: string[] = []
  assert.equal(await start(RELATIONS_RESOURCES, warnings), 'started')
  assert.deepEqual(warnings, [])
})

test('each mistake in a relation fails the start with one line naming its path', async () => {
  const path = 'config.resources.orders.relations'
  const cases: Array<[Config['resources'], string]> = [
    [ordersWith({ '1st': { field: 'customer_id' } }),
      `${path}.1st: a relation name must start with a letter or '_' and hold letters, digits or '_' (not '__…', etag or permissions)`],
    [ordersWith({ __customer: { field: 'customer_id' } }),
      `${path}.__customer: a relation name must start with a letter or '_' and hold letters, digits or '_' (not '__…', etag or permissions)`],
    [ordersWith({ etag: { field: 'customer_id' } }),
      `${path}.etag: a relation name must start with a letter or '_' and hold letters, digits or '_' (not '__…', etag or permissions)`],
    [ordersWith({ title: { field: 'customer_id' } }),
      `${path}.title: orders has a field named 'title': a relation needs a name of its own`],
    [ordersWith({ customer: { field: 'customr_id' } }),
      `${path}.customer.field: 'customr_id' is not a field of orders (did you mean 'customer_id'?)`],
    [ordersWith({ customer: { field: 'customer' } }),
      `${path}.customer.field: 'customer' is not a field of orders (the fields of orders that reference a resource: customer_id)`],
    [ordersWith({ customer: { field: 'title' } }),
      `${path}.customer.field: orders.title references no resource: give it \`references\` (the resource whose key it holds)`],
    [ordersWith({ lines: { resource: 'order_line', by: 'order_id' } }),
      `${path}.lines.resource: resource 'order_line' does not exist (did you mean 'order_lines'?)`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'orderid' } }),
      `${path}.lines.by: 'orderid' is not a field of order_lines (did you mean 'order_id'?)`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'orders' } }),
      `${path}.lines.by: 'orders' is not a field of order_lines (the fields of order_lines that reference a resource: order_id)`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'sku' } }),
      `${path}.lines.by: order_lines.sku must reference orders (\`references: 'orders'\`), and references nothing`],
    [ordersWith({ others: { resource: 'orders', by: 'customer_id' } }),
      `${path}.others.by: orders.customer_id must reference orders (\`references: 'orders'\`), not customers`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'order_id', orderBy: 'positon' } }),
      `${path}.lines.orderBy: 'positon' is not a field of order_lines (did you mean 'position'?)`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position sideways' } }),
      `${path}.lines.orderBy: 'position sideways' is not a field with an optional asc or desc`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position asc extra' } }),
      `${path}.lines.orderBy: 'position asc extra' is not a field with an optional asc or desc`],
    [ordersWith({ lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position,' } }),
      `${path}.lines.orderBy: '' is not a field with an optional asc or desc`],
    [{ customers, orders: { ...orders, relations: { lines: { resource: 'order_lines', by: 'order_id', orderBy: 'sku' } } }, order_lines: { ...lines, fields: { ...lines.fields, sku: { type: 'string', sortable: false } } } },
      `${path}.lines.orderBy: order_lines.sku is not sortable`],
  ]
  for (const [resources, expected] of cases) assert.equal(await start(resources), expected)
})

test('a reference to a resource of a composite key fails at the reference, before any relation through it', async () => {
  const bays = { key: ['region', 'number'], fields: { region: { type: 'string' }, number: { type: 'integer' } } } satisfies ResourceConfig
  const resources = { ...ordersWith({ customer: { field: 'customer_id' } }), bays, orders: { ...orders, fields: { ...orders.fields, customer_id: { type: 'bigint', references: 'bays' } }, relations: { bay: { field: 'customer_id' } } } } satisfies Config['resources']
  assert.equal(await start(resources), 'config.resources.orders.fields.customer_id.references: bays has a key of 2 fields; a reference names a record by a key of one field')
})

test('a plugin\'s resource whose rows are presented to each caller cannot be a relation\'s target', async () => {
  const audit = { ...orders, fields: { ...orders.fields, customer_id: { type: 'bigint', references: 'audit' } }, relations: { history: { field: 'customer_id' } } } satisfies ResourceConfig
  const plugins: Config['plugins'] = [[auditLog, { resource: 'audit' }]]
  const config = { plugins, roles: ['admin', 'user'] }
  assert.equal(await start({ orders: audit }, [], config),
    'config.resources.orders.relations.history.field: orders.customer_id references audit, a plugin\'s resource whose records the plugin trims for each caller: a relation cannot embed them')
  assert.equal(await start({ orders: { ...orders, relations: { history: { resource: 'audit', by: 'id' } } }, customers: { ...customers, relations: {} } }, [], config),
    'config.resources.orders.relations.history.resource: audit is a plugin\'s resource whose records the plugin trims for each caller: a relation cannot embed them')
})

test('the config schema names what is wrong inside the relation\'s shape, or the shapes it takes', async () => {
  const path = 'invalid config: config.resources.orders.relations.lines'
  const cases: Array<[Relations[string], string]> = [
    [{ resource: 'order_lines', by: 'order_id', pageSize: 101 }, `${path}.pageSize: expected integer to be less or equal to 100`],
    [{ resource: 'order_lines', by: 'order_id', pageSize: 0 }, `${path}.pageSize: expected integer to be greater or equal to 1`],
    [{ resource: 'order_lines', by: 'order_id', ordreBy: 'position' } as never, `${path}.ordreBy: unknown key (did you mean 'orderBy'?)`],
    [{ field: 'customer_id', pageSize: 5 } as never, `${path}.pageSize: unknown key`],
    [{ resource: 'order_lines' } as never, `${path}: expected { field } | { resource, by, orderBy?, pageSize? }`],
  ]
  for (const [relation, expected] of cases) assert.equal(await start(ordersWith({ lines: relation })), expected)
})

test('a relation whose foreign key no index starts with is a startup warning naming the index to create, once per index', async () => {
  await runSql(databaseUrl, `
    CREATE TABLE bare_customers (id bigserial PRIMARY KEY);
    CREATE TABLE bare_orders (id bigserial PRIMARY KEY, title text, customer_id bigint);
    CREATE INDEX ON bare_orders (title, customer_id);
    CREATE TABLE bare_lines (id bigserial PRIMARY KEY, tenant_id text NOT NULL, order_id bigint);
    CREATE INDEX ON bare_lines (tenant_id, order_id);
    CREATE TABLE bare_payments (id bigserial PRIMARY KEY, order_id bigint, amount numeric);
    CREATE INDEX ON bare_payments ((order_id + 0));
    CREATE INDEX ON bare_payments (amount) INCLUDE (order_id);
    CREATE VIEW bare_refunds AS SELECT id, order_id FROM bare_payments;
  `)
  const bigint = { type: 'bigint' } as const
  const orderId = { type: 'bigint', references: 'bare_orders' } as const
  const warnings: string[] = []
  assert.equal(await start({
    bare_customers: { fields: { id }, relations: { orders: { resource: 'bare_orders', by: 'customer_id' } } },
    bare_orders: {
      fields: { id, title: { type: 'string' }, customer_id: { ...bigint, references: 'bare_customers' } },
      relations: {
        customer: { field: 'customer_id' },
        lines: { resource: 'bare_lines', by: 'order_id' },
        payments: { resource: 'bare_payments', by: 'order_id' },
        refunds: { resource: 'bare_refunds', by: 'order_id' },
      },
    },
    // On a tenant's table, an index of (tenant, column) serves: every read there is by tenant too.
    bare_lines: { tenant: 'tenant_id', fields: { id, order_id: orderId } },
    bare_payments: { fields: { id, order_id: orderId } },
    // A view's reads are served by its tables' indexes, which are not the view's to tell.
    bare_refunds: { fields: { id, order_id: orderId } },
  }, warnings, { roles: ['admin', 'user'] }), 'started')
  assert.deepEqual(warnings, [
    'config.resources.bare_customers.relations.orders, config.resources.bare_orders.relations.customer: following the relation reads table bare_orders by column customer_id, and no index starts with it, so each such read scans the table. Create one: CREATE INDEX ON "bare_orders" ("customer_id")',
    'config.resources.bare_orders.relations.payments: following the relation reads table bare_payments by column order_id, and no index starts with it, so each such read scans the table. Create one: CREATE INDEX ON "bare_payments" ("order_id")',
  ])
})
