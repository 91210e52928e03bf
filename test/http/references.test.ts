// `references: '<resource>'`: a write may name only a record the caller can read. A project of
// another member, a deleted project and no project at all are the same 400 for a member, checked
// in the write's own statement; the owner and admins may name what they can read.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import { statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE projects (id serial PRIMARY KEY, name text NOT NULL, owner_id text NOT NULL, deleted_at timestamptz);
  CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL, owner_id text NOT NULL, project_id integer REFERENCES projects (id));
`)
const app = await buildApp({
  databaseUrl,
  roles: { member: ['projects.read.own', 'projects.create.own', 'projects.delete.own', 'tasks.*.own'] },
  resources: {
    projects: { owner: 'owner_id', softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true }, name: { type: 'string', required: true }, owner_id: { type: 'string' } } },
    tasks: {
      owner: 'owner_id',
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true }, owner_id: { type: 'string' }, project_id: { type: 'integer', references: 'projects' } },
    },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'member')
await createUser(app, 'bob@example.com', 'member')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const ann = caller(app, await bearer(app, 'ann@example.com'))
const bob = caller(app, await bearer(app, 'bob@example.com'))
const annId = (await usersOf(app).findByEmail('ann@example.com'))!.id

const annsProject = (await ann('POST', '/api/v1/projects', { payload: { name: 'Ann\'s' } })).body.id as number
const bobsProject = (await bob('POST', '/api/v1/projects', { payload: { name: 'Bob\'s' } })).body.id as number
const deletedProject = (await ann('POST', '/api/v1/projects', { payload: { name: 'Old' } })).body.id as number
assert.ok((await ann('DELETE', `/api/v1/projects/${deletedProject}`)).status < 300)

const REFUSED = {
  type: 'urn:service:problem:invalid-record',
  title: 'Invalid record',
  status: 400,
  detail: 'project_id names no projects record.',
  errors: [{ field: 'project_id', code: 'not-found', message: 'project_id names no projects record.' }],
}

async function taskCount (): Promise<number> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks')).rows[0]!.n)
}

test('a member cannot put a task in another member\'s project, a deleted one or none: one answer for all three', async () => {
  const before = await taskCount()
  for (const projectId of [bobsProject, deletedProject, 999_999]) {
    const answer = await ann('POST', '/api/v1/tasks', { payload: { title: 'sneaky', project_id: projectId } })
    assert.equal(answer.status, 400, `project ${projectId}`)
    assert.deepEqual({ ...answer.body, instance: undefined }, { ...REFUSED, instance: undefined }, `project ${projectId}`)
  }
  assert.equal(await taskCount(), before)
})

test('the owner and admins may name what they can read, in one statement; null names nothing', async () => {
  const statements = await statementsOf(async () => {
    const own = await ann('POST', '/api/v1/tasks', { payload: { title: 'mine', project_id: annsProject } })
    assert.equal(own.status, 201, JSON.stringify(own.body))
    assert.equal(own.body.project_id, annsProject)
  })
  // The check is the INSERT's own: no statement before it (`.own` adds the transaction, not the reference).
  const work = statements.filter((s) => s !== 'BEGIN' && s !== 'COMMIT')
  assert.equal(work.length, 1, statements.join('\n'))
  assert.match(work[0]!, /^INSERT INTO "tasks" .* WHERE EXISTS \(SELECT 1 FROM "projects" WHERE .* FOR KEY SHARE\)/)
  const byAdmin = await admin('POST', '/api/v1/tasks', { payload: { title: 'placed', owner_id: annId, project_id: bobsProject } })
  assert.equal(byAdmin.status, 201, JSON.stringify(byAdmin.body))
  assert.equal((await ann('POST', '/api/v1/tasks', { payload: { title: 'loose', project_id: null } })).status, 201)
  // Admins read deleted projects only with show_deleted: a reference names live records.
  assert.deepEqual((await admin('POST', '/api/v1/tasks', { payload: { title: 'late', project_id: deletedProject } })).body.errors, REFUSED.errors)
})

test('an update cannot move a task into a project out of reach; the task stays as it was', async () => {
  const task = (await ann('POST', '/api/v1/tasks', { payload: { title: 'move me', project_id: annsProject } })).body
  const moved = await ann('PATCH', `/api/v1/tasks/${task.id}`, { payload: { project_id: bobsProject }, headers: { 'if-match': task.etag } })
  assert.equal(moved.status, 400)
  assert.deepEqual(moved.body.errors, REFUSED.errors)
  const unchanged = await ann('GET', `/api/v1/tasks/${task.id}`)
  assert.equal(unchanged.body.project_id, annsProject)
  const renamed = await ann('PATCH', `/api/v1/tasks/${task.id}`, { payload: { title: 'renamed', project_id: annsProject }, headers: { 'if-match': task.etag } })
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
})

test('batch writes check references the same way, naming the operation', async () => {
  const before = await taskCount()
  const answer = await ann('POST', '/api/v1:batchWrite', {
    payload: {
      operations: [
        { op: 'create', resource: 'tasks', data: { title: 'fine', project_id: annsProject } },
        { op: 'create', resource: 'tasks', data: { title: 'sneaky', project_id: bobsProject } },
      ],
    },
  })
  assert.equal(answer.status, 400, JSON.stringify(answer.body))
  assert.equal(answer.body.type, 'urn:service:problem:invalid-record')
  assert.equal(answer.body.operation, 1)
  assert.deepEqual(answer.body.errors, REFUSED.errors)
  assert.equal(await taskCount(), before)
  const ok = await ann('POST', '/api/v1:batchWrite', {
    payload: { operations: [{ op: 'create', resource: 'projects', data: { name: 'New' }, ref: 'p' }, { op: 'create', resource: 'tasks', data: { title: 'in new', project_id: { $ref: 'p' } } }] },
  })
  assert.equal(ok.status, 200, JSON.stringify(ok.body))
})
