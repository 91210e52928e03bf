import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, subjectOf } from '../helpers/app.js'
import { compile } from '../../lib/sql/sql.js'
import { compileFiltered, compileList } from '../../lib/sql/read.js'
import { planList, MAX_FILTER_QUERY } from '../../lib/plan/list.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { conditionsOf } from '../../lib/query/filter/checked.js'
import { listGuardView } from '../../lib/read/guard-view.js'
import type { Config } from '../../lib/config/schema.js'
import { kinds, statementsOf } from '../helpers/statements.js'

const ROWS = 200_000
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE big (id bigserial PRIMARY KEY, status text NOT NULL, code integer NOT NULL, title text NOT NULL);
  INSERT INTO big (status, code, title) SELECT (ARRAY['draft', 'open', 'locked'])[1 + n % 3], n % 5000, 'Item ' || n FROM generate_series(1, ${ROWS}) AS n;
  CREATE INDEX big_code_idx ON big (code);
  ANALYZE big;
  CREATE TABLE docs (id serial PRIMARY KEY, meta jsonb NOT NULL);
  INSERT INTO docs (meta) SELECT jsonb_build_object('color', (ARRAY['red', 'blue', 'green'])[1 + n % 3], 'size', n % 100, 'tags', jsonb_build_array('t' || n % 50))
    FROM generate_series(1, 30000) AS n;
  ANALYZE docs;
  CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, body text NOT NULL);
  INSERT INTO notes (title, body) SELECT 'Note ' || n, 'Body of note ' || n || ' with needle ' || n % 97 FROM generate_series(1, 30000) AS n;
  ANALYZE notes;
  CREATE TABLE labels (id serial PRIMARY KEY, name text NOT NULL);
  INSERT INTO labels (name) SELECT 'needle ' || n FROM generate_series(1, 30000) AS n;
  ANALYZE labels;
  CREATE TABLE unanalyzed (id serial PRIMARY KEY, label text NOT NULL);
  INSERT INTO unanalyzed (label) SELECT 'x' || n FROM generate_series(1, 20000) AS n;
`)
const resources: Config['resources'] = {
  big: { fields: { id: { type: 'bigint', readOnly: true }, status: { type: 'string' }, code: { type: 'integer' }, title: { type: 'string', searchable: true } } },
  unanalyzed: { fields: { id: { type: 'integer', readOnly: true }, label: { type: 'string' } } },
  notes: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', searchable: true }, body: { type: 'string', searchable: true } } },
  labels: { fields: { id: { type: 'integer', readOnly: true }, name: { type: 'string', searchable: true } } },
  docs: { fields: { id: { type: 'integer', readOnly: true }, meta: { type: 'json' } } },
  // Each caller sees the rows of their own status; an admin sees all.
  narrowed: {
    table: 'big',
    fields: { id: { type: 'bigint', readOnly: true }, status: { type: 'string' }, code: { type: 'integer' } },
    access: { read: (ctx) => ctx.user.roles.includes('admin') ? true : { filter: { status: ctx.user.id } } },
  },
}

async function appWith (scanGuard: Config['scanGuard']) {
  const app = await buildApp({ databaseUrl, resources, scanGuard })
  if (!(await app.tablegate.users!.hasUsers())) await createUser(app, 'admin@example.com')
  return { app, call: caller(app, await bearer(app, 'admin@example.com')) }
}

const { app, call } = await appWith(undefined)
const list = async (query: string) => await call('GET', `/api/v1/big?${query}`)

test('an unindexed filter on a large table is refused with the index to create', async () => {
  const refused = await list(`filter=${encodeURIComponent('status = open')}`)
  assert.equal(refused.status, 400)
  assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
  assert.equal(refused.body.suggestion, 'CREATE INDEX ON "big" ("status", "id")')
  assert.match(refused.body.detail, /CREATE INDEX ON "big" \("status", "id"\)/)
  // The table's size is the caller's to know only as more than the threshold (default 10,000).
  assert.equal(refused.body.detail, 'This list would read a table of more than 10000 rows row by row, because no index serves its filter or order. An index would: CREATE INDEX ON "big" ("status", "id")')
})

test('an indexed filter, and the plain list in key order, pass', async () => {
  const indexed = await list(`filter=${encodeURIComponent('code = 42')}`)
  assert.equal(indexed.status, 200)
  assert.equal(indexed.body.items.length, 40)
  assert.equal(indexed.headers['x-service-warning'], undefined)
  assert.equal((await list('page_size=10')).status, 200)
})

test('an order by an unindexed column is refused; text search suggests a trigram index', async () => {
  const ordered = await list('order_by=title')
  assert.equal(ordered.status, 400)
  assert.equal(ordered.body.suggestion, 'CREATE INDEX ON "big" ("title", "id")')
  const searched = await list(`filter=${encodeURIComponent('search("Item 12")')}`)
  assert.equal(searched.status, 400)
  assert.equal(searched.body.suggestion, 'CREATE INDEX ON "big" USING gin ("title" gin_trgm_ops)')
})

test('json traversal: the suggestion indexes the path expression, which then serves the filter', async () => {
  const docs = async (via: typeof call, filter: string) => await via('GET', `/api/v1/docs?filter=${encodeURIComponent(filter)}`)
  const suggested = [
    ['meta.color = red', 'CREATE INDEX ON "docs" (("meta" #> ARRAY[\'color\']), "id")'],
    ['meta.size > 90', 'CREATE INDEX ON "docs" (("meta" #> ARRAY[\'size\']), "id")'],
    // A key is written as an SQL literal, its quotes doubled, for an administrator to run.
    ['meta."it\'s".x = 1', 'CREATE INDEX ON "docs" (("meta" #> ARRAY[\'it\'\'s\', \'x\']), "id")'],
    ['meta.color = "re*"', 'CREATE INDEX ON "docs" USING gin (("meta" #>> ARRAY[\'color\']) gin_trgm_ops)'],
    ['meta.tags:t7', 'CREATE INDEX ON "docs" USING gin (("meta" #> ARRAY[\'tags\']))'],
    ['meta:color', 'CREATE INDEX ON "docs" USING gin ("meta")'],
  ] as const
  for (const [filter, suggestion] of suggested) {
    const refused = await docs(call, filter)
    assert.equal(refused.status, 400, filter)
    assert.equal(refused.body.suggestion, suggestion, filter)
  }
  // Each path is its own shape: a verdict on one key is not reused for another.
  assert.notEqual((await docs(call, 'meta.size = 3')).body.suggestion, (await docs(call, 'meta.color = red')).body.suggestion)
  await runSql(databaseUrl, 'CREATE INDEX docs_color_idx ON docs ((meta #> ARRAY[\'color\']), id)')
  try {
    const { call: fresh } = await appWith(undefined)
    const served = await docs(fresh, 'meta.color = red')
    assert.equal(served.status, 200, JSON.stringify(served.body))
    assert.equal((await docs(fresh, 'meta.color = blue')).body.items.length, 50)
  } finally {
    await runSql(databaseUrl, 'DROP INDEX docs_color_idx')
  }
})

test('text matching: the suggested index, run as given, lets the same lists through, over one searchable field or several', async () => {
  const cases = [
    // A search over two fields is an OR of a match on each: an index on one of them serves neither arm alone.
    { resource: 'notes', filters: ['search("needle 7")', 'needle'], suggestion: 'CREATE INDEX ON "notes" USING gin ("title" gin_trgm_ops, "body" gin_trgm_ops)' },
    { resource: 'labels', filters: ['search("needle 7")', 'needle', 'similar(name, "needle 77")', 'regex(name, "^needle 7[0-9]$")'], suggestion: 'CREATE INDEX ON "labels" USING gin ("name" gin_trgm_ops)' },
  ]
  for (const { resource, filters, suggestion } of cases) {
    const listed = async (via: typeof call, filter: string) => await via('GET', `/api/v1/${resource}?page_size=5&filter=${encodeURIComponent(filter)}`)
    for (const filter of filters) {
      const refused = await listed(call, filter)
      assert.equal(refused.status, 400, filter)
      assert.equal(refused.body.type, 'urn:service:problem:expensive-query', filter)
      assert.equal(refused.body.suggestion, suggestion, filter)
    }
    await runSql(databaseUrl, suggestion)
    // A verdict holds for the process lifetime: a new process judges the shapes again.
    const { call: fresh } = await appWith(undefined)
    for (const filter of filters) {
      const served = await listed(fresh, filter)
      assert.equal(served.status, 200, `${filter}: ${JSON.stringify(served.body)}`)
      assert.equal(served.headers['x-service-warning'], undefined, filter)
      assert.equal(served.body.items.length, 5, filter)
    }
  }
})

test('a table never analyzed is measured by a bounded count', async () => {
  const refused = await call('GET', `/api/v1/unanalyzed?filter=${encodeURIComponent('label = x5')}`)
  assert.equal(refused.status, 400)
  assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
})

test('the verdict is kept per shape for the process lifetime, whatever the values', async () => {
  await runSql(databaseUrl, 'CREATE INDEX big_status_idx ON big (status, id)')
  try {
    const again = await list(`filter=${encodeURIComponent('status = locked')}`)
    assert.equal(again.status, 400, 'same shape, other value: the cached verdict stands')
    const { call: fresh } = await appWith(undefined)
    assert.equal((await fresh('GET', `/api/v1/big?filter=${encodeURIComponent('status = locked')}`)).status, 200, 'a new process judges again')
  } finally {
    await runSql(databaseUrl, 'DROP INDEX big_status_idx')
  }
})

test('the verdict is the shape\'s, not the first values\': an indexed range passes whether its first value matches most rows or few', async () => {
  // id > 1 matches nearly every row, so a plan left to choose reads the table sequentially.
  for (const [first, then] of [['id > 1', 'id > 199990'], ['code > 4990', 'code > 1']]) {
    const { call: fresh } = await appWith(undefined)
    for (const filter of [first, then]) {
      const page = await fresh('GET', `/api/v1/big?page_size=5&filter=${encodeURIComponent(filter!)}`)
      assert.equal(page.status, 200, `${filter} after ${first}: ${JSON.stringify(page.body)}`)
    }
  }
  const unindexed = await list(`filter=${encodeURIComponent('title = "Item 7" OR code > 1')}`)
  assert.equal(unindexed.status, 400, 'a filter no index can serve is refused, with indexes preferred too')
  assert.equal(unindexed.body.type, 'urn:service:problem:expensive-query')
})

test('a shape whose plan reads no table whole is judged by one EXPLAIN a statement; a statement that does, again with the indexes preferred', async () => {
  const { call: fresh } = await appWith(undefined)
  // A fresh app's first request reads the login's keys: not the guard's doing.
  assert.equal((await fresh('GET', `/api/v1/big?filter=${encodeURIComponent('id = 5')}`)).status, 200)
  // The guard's statements while a list is answered (the estimate may settle in the background meanwhile).
  const judged = async (filter: string) => kinds((await statementsOf(async () => {
    const page = await fresh('GET', `/api/v1/big?page_size=5&filter=${encodeURIComponent(filter)}`)
    assert.equal(page.status, 200, `${filter}: ${JSON.stringify(page.body)}`)
  })).filter((text) => /^(EXPLAIN \(FORMAT JSON, VERBOSE\)|BEGIN|COMMIT)/.test(text)))
  // code = 42 is read through its index, as it would run: the page and the filtered rows.
  assert.deepEqual(await judged('code = 42'), ['EXPLAIN', 'EXPLAIN'])
  // id > 1 matches nearly every row: planned as it would run, the filtered rows are read
  // sequentially, and only they are planned again (the page walks the key's index).
  assert.deepEqual(await judged('id > 1'), ['EXPLAIN', 'EXPLAIN', 'BEGIN', 'EXPLAIN', 'COMMIT'])
  assert.deepEqual(await judged('id > 2'), [], 'the shape\'s verdict is kept')
})

test('shapes new one after another that read the same table whole read its size once', async () => {
  const { call: fresh } = await appWith(undefined)
  assert.equal((await fresh('GET', '/api/v1/big?page_size=5')).status, 200)
  const sizeReads = async (filter: string) => (await statementsOf(async () => {
    const refused = await fresh('GET', `/api/v1/big?filter=${encodeURIComponent(filter)}`)
    assert.equal(refused.status, 400, `${filter}: ${JSON.stringify(refused.body)}`)
    assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
  })).filter((text) => text.includes('reltuples')).length
  assert.equal(await sizeReads('title = "Item 7"'), 1, 'the first shape that reads big whole reads its size')
  assert.equal(await sizeReads('status = "open" AND title = "Item 8"'), 0, 'the next one takes it as read')
  assert.equal(await sizeReads('title != "Item 9" OR status = "locked"'), 0)
})

test('warn mode answers with X-Service-Warning; off mode says nothing', async () => {
  const { call: warned } = await appWith({ mode: 'warn' })
  const response = await warned('GET', `/api/v1/big?page_size=5&filter=${encodeURIComponent('status = open')}`)
  assert.equal(response.status, 200)
  assert.equal(response.body.items.length, 5)
  assert.match(String(response.headers['x-service-warning']), /CREATE INDEX ON "big" \("status", "id"\)/)
  // A json path key may hold any character; the header carries it escaped, and never answers 500.
  const odd = await warned('GET', `/api/v1/docs?page_size=1&filter=${encodeURIComponent('meta."a\nb☃" = 1')}`)
  assert.equal(odd.status, 200, JSON.stringify(odd.body))
  assert.match(String(odd.headers['x-service-warning']), /ARRAY\['a\\u000ab\\u2603'\]/)
  const { call: silent } = await appWith({ mode: 'off' })
  const quiet = await silent('GET', `/api/v1/big?page_size=5&filter=${encodeURIComponent('status = open')}`)
  assert.equal(quiet.status, 200)
  assert.equal(quiet.headers['x-service-warning'], undefined)
})

test('the 100th page is read by keyset: an index range scan, not an offset', async () => {
  let token = ''
  let tokenOfPage100 = ''
  let ids: string[] = []
  for (let page = 1; page <= 100; page++) {
    tokenOfPage100 = token
    const response = await list(`page_size=50&fields=id${token === '' ? '' : `&page_token=${encodeURIComponent(token)}`}`)
    assert.equal(response.status, 200)
    ids = response.body.items.map((r: { id: string }) => r.id)
    token = response.body.next_page_token
  }
  assert.deepEqual([ids[0], ids.at(-1)], ['4951', '5000'])

  // Plan the 100th page exactly as the route does, and ask PostgreSQL how it would run it.
  const model = app.tablegate.models.get('big')!
  const runtime = runtimeOf(app)
  // The admin the pages were read as: a page token belongs to its caller.
  const admin = { user: { id: subjectOf(await bearer(app, 'admin@example.com')), roles: ['admin'] } }
  const access = runtime.access.plan(admin, runtime.access.keyOf(admin), model.name)!
  const context = { access, accessOf: () => access, services: runtime.services, rowPermissions: false, maxFilterLength: MAX_FILTER_QUERY }
  const plan = planList({ page_size: '50', fields: 'id', page_token: tokenOfPage100 }, context)
  const { text, values } = compile(compileList(plan))
  const explained = (await runtimeOf(app).db.app.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]['QUERY PLAN'][0].Plan
  assert.equal(explained['Node Type'], 'Limit')
  const scan = explained.Plans[0]
  assert.equal(scan['Node Type'], 'Index Scan')
  assert.equal(scan['Index Name'], 'big_pkey')
  assert.match(scan['Index Cond'], /id > /)
  assert.ok(scan['Plan Rows'] <= ROWS)
})

/** The shape the scan guard keys its verdicts by: what a list guard's view says. */
function listStructure (plan: ListPlan): string {
  return listGuardView(plan, runtimeOf(app).db.read).shape
}

/** What the shape must tell apart: the statements' SQL (json key paths are bound, yet each wants its own index). */
function shapeKey (plan: ListPlan): string {
  const paths = (plan.filter === undefined ? [] : conditionsOf(plan.filter)).flatMap((c) => c.kind === 'json-path' ? [JSON.stringify(c.path)] : [])
  const order = plan.order.map((t) => `${t.field.name} ${t.direction}`).join(',')
  return `${plan.kind}\0${plan.model.name}\0${compile(compileFiltered(plan)).text}\0${paths.join(',')}\0${order}\0${plan.count}`
}

test('a list\'s structure, its values left out, tells shapes apart exactly as their SQL does', () => {
  // The guard finds a known shape from the structure alone; two lists may share a structure only
  // where they share the shape's SQL, or one would be judged by the other's verdict.
  const runtime = runtimeOf(app)
  const plansOf = (resource: string, filters: readonly string[]) => {
    const access = runtime.access.plan({ user: { id: 'x', roles: ['admin'] } }, 'x', resource)!
    const context = { access, accessOf: () => access, services: runtime.services, rowPermissions: false, maxFilterLength: MAX_FILTER_QUERY }
    return filters.flatMap((filter) => ['', 'id desc'].map((order) => planList({ filter, order_by: order }, context)))
  }
  const plans = [
    ...plansOf('big', [
      'id > 1', 'id > 2', 'id >= 1', 'id < 1', 'code = 1', 'code = 2', 'code != 1', 'code = 1 AND id > 1', 'code = 2 AND id > 7',
      'code = 1 OR id > 1', 'NOT code = 1', 'NOT code = 3', 'status = "open"', 'status = "o*"', 'status = "p*"', 'status : "pe"',
      'status = null', 'status != null', 'in(code, 1, 2)', 'in(code, 3, 4)', 'in(code, 1, 2, 3)', 'title : "x"', 'x', 'y',
      '(code = 1 OR code = 2) AND id > 1', '(code = 5 OR code = 6) AND id > 9', 'code = 1 OR (code = 2 AND id > 1)',
    ]),
    ...plansOf('docs', ['meta.color = "red"', 'meta.color = "blue"', 'meta.size > 4', 'meta.size > 40', 'meta.size > "x"',
      'meta.tags : "t1"', 'meta.tags : "t2"', 'meta.shade = "red"', 'meta.color = null', 'meta.color != null', 'meta.color = "r*"']),
  ]
  for (const a of plans) {
    for (const b of plans) {
      assert.equal(listStructure(a) === listStructure(b), shapeKey(a) === shapeKey(b), `${a.filterText} / ${b.filterText}`)
    }
  }
  assert.equal(listStructure(plans[0]!), listStructure(plans[2]!), 'id > 1 and id > 2 share a structure')
})

test('callers narrowed alike share a list\'s structure; a caller narrowed otherwise does not', () => {
  const runtime = runtimeOf(app)
  const planOf = (id: string, roles: string[], filter: string) => {
    const access = runtime.access.plan({ user: { id, roles } }, JSON.stringify([id, roles]), 'narrowed')!
    return planList({ filter }, { access, accessOf: () => access, services: runtime.services, rowPermissions: false, maxFilterLength: MAX_FILTER_QUERY })
  }
  const plans = ['code = 1', 'id > 1'].flatMap((filter) => [planOf('open', ['user'], filter), planOf('draft', ['user'], filter), planOf('x', ['admin'], filter)])
  for (const a of plans) {
    for (const b of plans) {
      assert.equal(listStructure(a) === listStructure(b), shapeKey(a) === shapeKey(b), `${a.filterText} / ${b.filterText}`)
    }
  }
  assert.equal(listStructure(plans[0]!), listStructure(plans[1]!), 'two callers, each narrowed to their own rows, share a structure')
  assert.notEqual(listStructure(plans[0]!), listStructure(plans[2]!), 'a caller who sees every row has another')
})
