// An explicit rule replaces the bundles' capabilities for its operation: the start says which
// bundle entries it leaves granting nothing, once each, as a warning of the app's logger.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { createServer } from '../../lib/server.js'
import { TEST_SECRET } from '../helpers/app.js'
import { warningsLogger } from '../helpers/warnings.js'


test('the start warns of each capability an explicit rule leaves granting nothing', async () => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, 'CREATE TABLE orders (id serial PRIMARY KEY, owner_id text, deleted_at timestamptz); CREATE TABLE tags (id serial PRIMARY KEY)')
  const warnings: string[] = []
  const app = await createServer({
    databaseUrl,
    authSecret: TEST_SECRET,
    roles: { manager: ['orders.*', '*.read', 'orders.undelete'], clerk: ['orders.read.own', 'orders.update.own', 'orders.export'] },
    resources: {
      orders: { owner: 'owner_id', softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true }, owner_id: { type: 'string' } }, access: { read: true, delete: ['admin'], export: ['manager'] } },
      tags: { fields: { id: { type: 'integer', readOnly: true } }, access: { read: true } },
    },
  }, { loggerInstance: warningsLogger(warnings) })
  after(async () => { await app.close() })
  await app.ready()
  // orders.* still grants create and update; *.read is dead only because both resources have a
  // read rule; the delete rule decides undelete too.
  const rest = '(an explicit rule replaces the capabilities for its operation). Remove the entry, or the rule.'
  assert.deepEqual(warnings, [
    `config.roles.manager[1]: '*.read' grants nothing: the rules config.resources.orders.access.read, config.resources.tags.access.read decide instead ${rest}`,
    `config.roles.manager[2]: 'orders.undelete' grants nothing: the rule config.resources.orders.access.delete decides instead ${rest}`,
    `config.roles.clerk[0]: 'orders.read.own' grants nothing: the rule config.resources.orders.access.read decides instead ${rest}`,
    `config.roles.clerk[2]: 'orders.export' grants nothing: the rule config.resources.orders.access.export decides instead ${rest}`,
  ])
})
