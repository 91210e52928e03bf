// Tenancy through relations (docs/access.md "Tenants"): tasks, comments and a composite-key join
// table kept per organization through their parents, on every route, for members of two
// organizations; rules that walk a relation as stored, for reads and for writes (the target row
// and the row as written).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, caller } from '../helpers/app.js'
import { bearerIn, TENANCY_RESOURCES, TENANCY_ROLES, TENANCY_SCHEMA, twoOrganizations } from '../fixtures/tenancy-through.js'
import { statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, TENANCY_SCHEMA)
const app = await buildApp({ databaseUrl, ...TENANCY_ROLES, resources: TENANCY_RESOURCES })
const { acme, globex } = await twoOrganizations(app)

// Each organization: an active project with two tasks, a soft-deleted project with one, an
// archived project with one; a comment on each task; a label on the first task.
await withClient(databaseUrl, async (c) => {
  await c.query("INSERT INTO labels (name) VALUES ('urgent'), ('later')")
  for (const [org, prefix] of [[acme, 'acme'], [globex, 'globex']] as const) {
    const project = async (name: string, status: string, deleted: boolean): Promise<number> => (await c.query<{ id: number }>(
      `INSERT INTO projects (org_id, name, status, deleted_at) VALUES ($1, $2, $3, ${deleted ? 'now()' : 'NULL'}) RETURNING id`, [org, `${prefix} ${name}`, status])).rows[0]!.id
    const task = async (projectId: number, title: string): Promise<number> => {
      const id = (await c.query<{ id: number }>('INSERT INTO tasks (project_id, title, secret) VALUES ($1, $2, $3) RETURNING id', [projectId, `${prefix} ${title}`, `${prefix} secret`])).rows[0]!.id
      await c.query('INSERT INTO comments (task_id, body) VALUES ($1, $2)', [id, `${prefix} on ${title}`])
      return id
    }
    const active = await project('active', 'active', false)
    const first = await task(active, 'one')
    await task(active, 'two')
    await c.query('INSERT INTO task_labels (task_id, label_id) VALUES ($1, 1)', [first])
    await task(await project('gone', 'active', true), 'of a deleted project')
    await task(await project('old', 'archived', false), 'of an archived project')
    await project('cold', 'frozen', false)
  }
})

const bobInGlobex = await bearerIn(app, 'bob@example.com', globex)
const bob = { acme: caller(app, await bearerIn(app, 'bob@example.com', acme)), globex: caller(app, bobInGlobex) }
const ann = caller(app, await bearerIn(app, 'ann@example.com', acme))

function assertProblem (answer: { status: number, headers: Record<string, unknown>, body: any }, status: number, slug: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.type, `urn:service:problem:${slug}`)
}

async function ids (table: string): Promise<number[]> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ id: number }>(`SELECT t.id FROM ${table} t`)).rows.map((r) => r.id))
}

async function titles (call: typeof ann, url: string): Promise<string[]> {
  const answer = await call('GET', url)
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body.items.map((item: { title?: string, body?: string, name?: string }) => item.title ?? item.body ?? item.name).sort()
}

test('each member reads only their organization\'s tasks, comments and labels of tasks; a deleted parent keeps its tenant', async () => {
  assert.deepEqual(await titles(bob.acme, '/api/v1/tasks'), ['acme of a deleted project', 'acme one', 'acme two'])
  assert.deepEqual(await titles(bob.globex, '/api/v1/tasks'), ['globex of a deleted project', 'globex one', 'globex two'])
  // A comment has no rule of its own: one on a task of an archived project is there.
  assert.deepEqual(await titles(bob.acme, '/api/v1/comments'), ['acme on of a deleted project', 'acme on of an archived project', 'acme on one', 'acme on two'])
  const labels = await bob.globex('GET', '/api/v1/task_labels?fields=task.title,label.name')
  assert.deepEqual(labels.body.items.map((l: any) => [l.task.title, l.label.name]), [['globex one', 'urgent']])
  // The hidden field stays hidden, and the tenant is no field at all.
  const [task] = (await bob.acme('GET', '/api/v1/tasks?page_size=1')).body.items
  assert.deepEqual(Object.keys(task).sort(), ['deleted_at', 'etag', 'id', 'permissions', 'project_id', 'title'])
})

test('another organization\'s rows do not exist: get, update, delete and undelete are the 404 of a missing record', async () => {
  const [globexTask] = (await bob.globex('GET', '/api/v1/tasks?filter=title%3D%22globex%20one%22')).body.items
  const [globexComment] = (await bob.globex('GET', '/api/v1/comments?page_size=1')).body.items
  const missing = async (resource: string, key: string): Promise<unknown> => (await bob.acme('GET', `/api/v1/${resource}/${key}`)).body
  for (const [resource, key, answer] of [
    ['tasks', globexTask.id, await bob.acme('GET', `/api/v1/tasks/${globexTask.id as number}`)],
    ['tasks', globexTask.id, await bob.acme('PATCH', `/api/v1/tasks/${globexTask.id as number}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })],
    ['tasks', globexTask.id, await bob.acme('DELETE', `/api/v1/tasks/${globexTask.id as number}`)],
    ['tasks', globexTask.id, await bob.acme('POST', `/api/v1/tasks/${globexTask.id as number}:undelete`)],
    ['comments', globexComment.id, await bob.acme('GET', `/api/v1/comments/${globexComment.id as number}`)],
    ['task_labels', `${globexTask.id as number}/1`, await bob.acme('GET', `/api/v1/task_labels/${globexTask.id as number}/1`)],
  ] as const) {
    assert.equal(answer.status, 404)
    const unknownKey = typeof key === 'number' ? '999999' : '999999/1'
    assert.deepEqual({ ...answer.body, instance: '' }, { ...(await missing(resource, unknownKey) as object), instance: '' })
  }
})

test('a create names a parent in the caller\'s organization, or it is the 400 of a reference to no record', async () => {
  const [acmeProject] = (await ann('GET', '/api/v1/projects?filter=name%3D%22acme%20active%22')).body.items
  const [globexProject] = (await bob.globex('GET', '/api/v1/projects?filter=name%3D%22globex%20active%22')).body.items
  const created = await bob.acme('POST', '/api/v1/tasks', { payload: { project_id: acmeProject.id, title: 'acme three' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  for (const payload of [{ project_id: globexProject.id, title: 'smuggled' }, { title: 'orphan' }, { project_id: null, title: 'orphan' }]) {
    const refused = await bob.acme('POST', '/api/v1/tasks', { payload })
    assertProblem(refused, 400, 'invalid-record')
    assert.deepEqual(refused.body.errors, [{ field: 'project_id', code: 'not-found', message: 'project_id names no projects record.' }])
  }
  const moved = await bob.acme('PATCH', `/api/v1/tasks/${created.body.id as number}`, { payload: { project_id: globexProject.id }, headers: { 'if-match': '*' } })
  assertProblem(moved, 400, 'invalid-record')
  const cleared = await bob.acme('PATCH', `/api/v1/tasks/${created.body.id as number}`, { payload: { project_id: null }, headers: { 'if-match': '*' } })
  assert.deepEqual(cleared.body.errors, [{ field: 'project_id', code: 'not-found', message: 'project_id names no projects record.' }])
  // Two hops: a comment on another organization's task, and a label of it.
  const [globexTask] = (await bob.globex('GET', '/api/v1/tasks?page_size=1')).body.items
  assertProblem(await bob.acme('POST', '/api/v1/comments', { payload: { task_id: globexTask.id, body: 'x' } }), 400, 'invalid-record')
  assertProblem(await bob.acme('POST', '/api/v1/task_labels', { payload: { task_id: globexTask.id, label_id: 2 } }), 400, 'invalid-record')
  assert.equal((await bob.acme('POST', '/api/v1/comments', { payload: { task_id: created.body.id, body: 'mine' } })).status, 201)
  assert.equal((await bob.acme('DELETE', `/api/v1/tasks/${created.body.id as number}`)).status, 204)
})

test('counts, aggregates, exports, embeds and traversed filters see the caller\'s organization only', async () => {
  const stored = await withClient(databaseUrl, async (c) => (await c.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM comments JOIN tasks ON tasks.id = comments.task_id JOIN projects ON projects.id = tasks.project_id WHERE projects.org_id = $1', [acme])).rows[0]!.n)
  const counted = await bob.acme('GET', '/api/v1/comments?count=exact')
  assert.equal(counted.body.total_size, stored)
  assert.ok(counted.body.total_size_estimate <= stored)
  const facets = await bob.acme('GET', '/api/v1/comments:facets?field=task.title')
  assert.equal(facets.status, 200, JSON.stringify(facets.body))
  // A comment whose task the caller may not read (archived project, deleted task) is the null bucket.
  const buckets = facets.body.facets as Array<{ value: string | null, count: number }>
  assert.deepEqual(buckets.filter((b) => b.value !== null).map((b) => [b.value, b.count]), [['acme of a deleted project', 1], ['acme one', 1], ['acme two', 1]])
  assert.equal(buckets.reduce((n, b) => n + b.count, 0), stored)
  const exported = await app.inject({ method: 'GET', url: '/api/v1/comments:export?fields=body,task.title&format=csv', headers: bobInGlobex })
  assert.equal(exported.statusCode, 200)
  assert.doesNotMatch(exported.body, /acme/)
  assert.match(exported.body, /globex on one,globex one/)
  const projects = await bob.acme('GET', '/api/v1/projects?fields=name,tasks.title')
  assert.deepEqual(projects.body.items.map((p: any) => [p.name, p.tasks.items.map((t: { title: string }) => t.title)]), [['acme active', ['acme one', 'acme two']], ['acme old', []], ['acme cold', []]])
  assert.deepEqual(await titles(bob.acme, `/api/v1/comments?filter=${encodeURIComponent('task.title:"one"')}`), ['acme on one'])
  assert.deepEqual(await titles(bob.acme, `/api/v1/projects?filter=${encodeURIComponent('tasks.title:"globex"')}`), [])
})

test('a rule walks the project as stored: archived projects\' tasks are gone, frozen ones\' read-only, whatever the caller reads of projects', async () => {
  // Archived projects are readable to members, yet their tasks are not; frozen ones' are there to read.
  assert.equal((await titles(bob.acme, '/api/v1/tasks')).some((t) => t.includes('archived')), false)
  const [cold] = (await ann('GET', '/api/v1/projects?filter=name%3D%22acme%20cold%22')).body.items
  const [active] = (await ann('GET', '/api/v1/projects?filter=name%3D%22acme%20active%22')).body.items
  // A create into a frozen project: the row as written is outside the create rule.
  assertProblem(await bob.acme('POST', '/api/v1/tasks', { payload: { project_id: cold.id, title: 'into the cold' } }), 403, 'access-denied')
  // An update that moves a task into a frozen project: the row as written is outside the update rule.
  const task = await bob.acme('POST', '/api/v1/tasks', { payload: { project_id: active.id, title: 'to freeze' } })
  assertProblem(await bob.acme('PATCH', `/api/v1/tasks/${task.body.id as number}`, { payload: { project_id: cold.id }, headers: { 'if-match': '*' } }), 403, 'access-denied')
  // The project freezes: the task is still read, and no longer written (the target row is outside the rule).
  await withClient(databaseUrl, async (c) => { await c.query("UPDATE projects SET status = 'frozen' WHERE id = $1", [active.id]) })
  try {
    assert.equal((await bob.acme('GET', `/api/v1/tasks/${task.body.id as number}`)).status, 200)
    assert.equal((await bob.acme('PATCH', `/api/v1/tasks/${task.body.id as number}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })).status, 404)
  } finally {
    await withClient(databaseUrl, async (c) => { await c.query("UPDATE projects SET status = 'active' WHERE id = $1", [active.id]) })
  }
  assert.equal((await bob.acme('DELETE', `/api/v1/tasks/${task.body.id as number}`)).status, 204)
})

test('a batch write is confined as single writes are: one refused operation rolls back the others', async () => {
  const [acmeTask] = (await bob.acme('GET', '/api/v1/tasks?page_size=1')).body.items
  const [globexTask] = (await bob.globex('GET', '/api/v1/tasks?page_size=1')).body.items
  const before = await ids('comments')
  const answer = await bob.acme('POST', '/api/v1:batchWrite', {
    payload: { operations: [
      { op: 'create', resource: 'comments', data: { task_id: acmeTask.id, body: 'fine' } },
      { op: 'create', resource: 'comments', data: { task_id: globexTask.id, body: 'smuggled' } },
    ] },
  })
  assert.equal(answer.status, 400)
  assert.deepEqual(await ids('comments'), before)
})

test('one statement a request: the tenant is an EXISTS over the parents, in the same query', async () => {
  const url = '/api/v1/comments?fields=body,task.title'
  await bob.acme('GET', url)
  const statements = await statementsOf(async () => await bob.acme('GET', url))
  assert.equal(statements.length, 1, statements.join('\n'))
  assert.match(statements[0]!, /EXISTS \(SELECT 1 FROM "tasks" AS "__tenant_1", "projects" AS "__tenant_2" WHERE "__tenant_1"\."id" = "comments"\."task_id" AND "__tenant_2"\."id" = "__tenant_1"\."project_id" AND "__tenant_2"\."org_id" = \$\d+\)/)
})

test('a page token belongs to the scope it was made for: another organization\'s, even the same user\'s, is not a token this server issued', async () => {
  const first = await bob.acme('GET', '/api/v1/comments?page_size=1')
  const token = first.body.next_page_token as string
  assert.notEqual(token, '')
  assert.equal((await bob.acme('GET', `/api/v1/comments?page_size=1&page_token=${encodeURIComponent(token)}`)).status, 200)
  const foreign = await bob.globex('GET', `/api/v1/comments?page_size=1&page_token=${encodeURIComponent(token)}`)
  const forged = await bob.globex('GET', '/api/v1/comments?page_size=1&page_token=bm90LWEtdG9rZW4')
  assertProblem(foreign, 400, 'invalid-parameter')
  assert.deepEqual({ ...foreign.body, instance: '' }, { ...forged.body, instance: '' })
  // A to-many embed's token too.
  const projects = await ann('GET', '/api/v1/projects?fields=id,name,tasks.title&filter=name%3D%22acme%20active%22')
  const [project] = projects.body.items
  await withClient(databaseUrl, async (c) => { await c.query("INSERT INTO tasks (project_id, title) SELECT $1, 'acme filler ' || n FROM generate_series(1, 12) n", [project.id]) })
  const embedded = (await ann('GET', '/api/v1/projects?fields=name,tasks.title&filter=name%3D%22acme%20active%22')).body.items[0].tasks.next_page_token as string
  assert.notEqual(embedded, '')
  assert.equal((await ann('GET', `/api/v1/tasks?page_token=${encodeURIComponent(embedded)}`)).status, 200)
  assertProblem(await bob.acme('GET', `/api/v1/tasks?page_token=${encodeURIComponent(embedded)}`), 400, 'invalid-parameter')
})
