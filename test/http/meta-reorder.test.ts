// A view's `reorder` field: checked at startup (an integer field of the resource, a typo named
// with a suggestion), and in /api/meta only for a caller who may both read and write it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { PAGES_CONFIG, PAGES_SCHEMA } from '../fixtures/console-pages.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, PAGES_SCHEMA)
const app = await buildApp({ databaseUrl, ...PAGES_CONFIG })
for (const role of [undefined, 'member', 'viewer', 'editor', 'guest']) await createUser(app, `${role ?? 'admin'}@example.com`, role)

async function tasksView (email: string): Promise<Record<string, unknown>> {
  const answer = await caller(app, await bearer(app, email))('GET', '/api/meta')
  assert.equal(answer.status, 200)
  return answer.body.views.tasks
}

test('reorder reaches a caller who may read and write the field, and no one else', async () => {
  const { reorder: _reorder, ...rest } = PAGES_CONFIG.views.tasks
  assert.deepEqual(await tasksView('admin@example.com'), PAGES_CONFIG.views.tasks)
  assert.deepEqual(await tasksView('member@example.com'), PAGES_CONFIG.views.tasks)
  // Reads position but may not update tasks at all.
  assert.deepEqual(await tasksView('viewer@example.com'), rest)
  // Updates tasks, but position is not among the fields it may write.
  assert.deepEqual(await tasksView('editor@example.com'), rest)
  // Cannot read position: gone from the sort as well.
  const { sort: _sort, ...unsorted } = rest
  assert.deepEqual(await tasksView('guest@example.com'), unsorted)
})

test('a reorder field is checked at startup: a field of the resource, and an integer one', async () => {
  const cases: Array<[Pick<Config, 'views'>, RegExp]> = [
    [{ views: { tasks: { reorder: 'positon' } } }, /config\.views\.tasks\.reorder: 'positon' is not a field of tasks \(did you mean 'position'\?\)/],
    [{ views: { tasks: [{ roles: ['member'] }, { reorder: 'title' }] } }, /config\.views\.tasks\[1\]\.reorder: 'title' is a string field of tasks, and a reorder field must be an integer or bigint/],
  ]
  for (const [change, message] of cases) {
    await assert.rejects(buildApp({ databaseUrl, ...PAGES_CONFIG, ...change }), message)
  }
  const valid = await buildApp({ databaseUrl, ...PAGES_CONFIG, views: { tasks: { reorder: 'estimate' } } })
  await valid.close()
})
