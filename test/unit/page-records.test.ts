// A page's records, built from rows as PostgreSQL returns them for the list's own statement and
// written by JSON.stringify, are the bytes the selection's writer writes for the same rows, and
// carry none of the statement's helper columns.
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
import { etags } from '../../lib/serialize/etag.js'
import { recordBuilder, recordWriter } from '../../lib/serialize/json.js'
import { listJson } from '../../lib/serialize/envelopes.js'
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
  checks: { filters: new BoundedCache<never>(10), orders: new BoundedCache<never>(10), graphs: new BoundedCache<never>(10) },
  pageTokens: pageTokens(deriveKey('x'.repeat(32), 'page-token')),
  etags: etags(deriveKey('x'.repeat(32), 'etag')),
}
const access = resolveAccess({ user: { id: 'u1', roles: ['user'] }, tenant: undefined }, models.get('items')!,
  { bundles: undefined, defaultAccess: undefined, trigram: true, ruleFilters: new RuleFilters(models) })

const plan = (input: ListInput): ListPlan => planList(input, { access, accessOf: () => access, services, rowPermissions: true, maxFilterLength: MAX_FILTER_QUERY })
const read = async (listed: ListPlan): Promise<Row[]> => await withClient(databaseUrl, async (db) => await rows<Row>(db, compileList(listed)))

const PERMISSIONS = '{"update":true,"delete":true}'

/** The page as the builder and JSON.stringify make it, and as the writer writes each record. */
function bothWays (listed: ListPlan, page: readonly Row[]): [string, string] {
  const etag = services.etags.of(listed.model, listed.readable)
  const build = recordBuilder(listed.select)
  const write = recordWriter(listed.select)
  const built = listJson(page.map((row) => build(row, etag(row), JSON.parse(PERMISSIONS))), 't', page.length, undefined)
  const written = `{"items":[${page.map((row) => write(row, etag(row), PERMISSIONS)).join(',')}],"next_page_token":"t","total_size_estimate":${page.length}}`
  return [built, written]
}

test('records built from rows as read stringify as the writer writes them', async () => {
  const listed = plan({ order_by: 'rank' })
  const [built, written] = bothWays(listed, await read(listed))
  assert.equal(built, written)
  assert.match(built, /"title":"item \\"1\\"\\n"/)
})

test('a helper column of the statement (an order field outside the fields mask) is read but never written', async () => {
  const masked = plan({ order_by: 'rank', fields: 'title' })
  const page = await read(masked)
  assert.ok('__order_0' in page[0]!, 'the order field outside the mask comes as a helper column')
  const [built, written] = bothWays(masked, page)
  assert.equal(built, written)
  assert.doesNotMatch(built, /__order_0|"rank"/)
})
