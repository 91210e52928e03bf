// A page's records: rows read with exactly the selected fields become the records themselves,
// written by JSON.stringify with the page; other rows go through the selection's writer. Both give
// the same bytes. Rows are read from PostgreSQL by the list's own statement.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildModels } from '../../lib/model/build.js'
import { introspectModels } from '../../lib/model/introspect.js'
import { Selections } from '../../lib/model/selection.js'
import { BoundedCache } from '../../lib/cache.js'
import { deriveKey } from '../../lib/crypto.js'
import { pageTokens } from '../../lib/query/page-token.js'
import { resolveAccess } from '../../lib/access/resolve.js'
import { RuleFilters } from '../../lib/access/row-filter.js'
import { MAX_FILTER_QUERY, planList, type ListInput } from '../../lib/plan/list.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { compileList } from '../../lib/sql/read.js'
import { rows } from '../../lib/db/query.js'
import { pageItems } from '../../lib/read/execute.js'
import { etags } from '../../lib/serialize/etag.js'
import { listJson, recordWriter } from '../../lib/serialize/json.js'
import type { Row } from '../../lib/serialize/record.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE items (id bigint PRIMARY KEY, title text NOT NULL, rank integer NOT NULL, version integer NOT NULL DEFAULT 1);
  INSERT INTO items (id, title, rank) SELECT n, 'item "' || n || E'"\\n', 10 - n FROM generate_series(1, 5) AS n;
`)
const models = await withClient(databaseUrl, async (db) => await introspectModels(db, buildModels({
  items: { version: 'version', fields: { id: { type: 'bigint' }, title: { type: 'string' }, rank: { type: 'integer' } } },
})))
const services = {
  selections: new Selections(),
  checks: { filters: new BoundedCache<never>(10), orders: new BoundedCache<never>(10) },
  pageTokens: pageTokens(deriveKey('x'.repeat(32), 'page-token')),
  etags: etags(deriveKey('x'.repeat(32), 'etag')),
}
const access = resolveAccess({ user: { id: 'u1', roles: ['user'] }, tenant: undefined }, models.get('items')!,
  { bundles: undefined, defaultAccess: undefined, trigram: true, ruleFilters: new RuleFilters() })

const plan = (input: ListInput): ListPlan => planList(input, { access, services, rowPermissions: true, maxFilterLength: MAX_FILTER_QUERY })
const read = async (listed: ListPlan): Promise<Row[]> => await withClient(databaseUrl, async (db) => await rows<Row>(db, compileList(listed)))

/** The page as the selection's writer writes each record. */
function written (listed: ListPlan, page: readonly Row[], permissions: string): string {
  const write = recordWriter(listed.select)
  const etag = services.etags.of(listed.model, listed.readable)
  return listJson({ texts: page.map((row) => write(row, etag(row), permissions)) }, 't', page.length, undefined)
}

test('rows holding exactly the selected fields are made the records, and stringify as the writer writes them', async () => {
  const listed = plan({ order_by: 'rank' })
  const page = await read(listed)
  const expected = written(listed, page, '{"update":true,"delete":true}')
  const items = await pageItems(listed, page, services)
  assert.ok('rows' in items, 'the rows themselves are the records')
  assert.equal(items.rows, page)
  assert.deepEqual(Object.keys(page[0]!), ['id', 'title', 'rank', 'version', 'etag', 'permissions'])
  assert.equal(listJson(items, 't', page.length, undefined), expected)
})

test('rows with a helper column, or a presentation of its own, are written record by record', async () => {
  const masked = plan({ order_by: 'rank', fields: 'title' })
  const helped = await read(masked)
  assert.ok('__order_0' in helped[0]!, 'the order field outside the mask comes as a helper column')
  const items = await pageItems(masked, helped, services)
  assert.ok('texts' in items)
  assert.equal(listJson(items, 't', helped.length, undefined), written(masked, helped, '{"update":true,"delete":true}'))

  const listed = plan({})
  const presented = { ...listed, scope: { ...listed.scope, present: (row: Row): Row => ({ ...row, title: 'shown' }) } }
  const page = await read(listed)
  const shown = await pageItems(presented, page, services)
  assert.ok('texts' in shown)
  assert.match(listJson(shown, 't', page.length, undefined), /"title":"shown"/)
})
