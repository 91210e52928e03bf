// Field errors name the field and the rule in plain words, for every value the database would
// refuse as well as for the field's own rules; the value itself is never echoed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE tasks (id serial PRIMARY KEY, title text, due date, priority integer, status text); CREATE TABLE checked (id serial PRIMARY KEY, title text)')
const app = await buildApp({
  databaseUrl,
  resources: {
    tasks: {
      fields: {
        id: { type: 'integer', readOnly: true },
        title: { type: 'string', minLength: 2, maxLength: 5 },
        due: { type: 'date' },
        priority: { type: 'integer', minimum: 1, maximum: 5 },
        status: { type: 'string', enum: ['open', 'done'] },
      },
    },
    // A validate with a bug: for one title it answers an issue that is not in a list.
    checked: {
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } },
      validate: ((record: { title?: string }) => record.title === 'bad' ? [{ field: 'title', message: 'title is bad.' }] : record.title === 'buggy' ? { field: 'title', message: 'no' } : []) as never,
    },
  },
})
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))

test('each refused value is a field error naming its field and the rule', async () => {
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ due: '2026-13-45' }, 'due', 'due must be a date YYYY-MM-DD from 0001-01-01 to 9999-12-31.'],
    [{ priority: 6 }, 'priority', 'priority must be at most 5.'],
    [{ priority: 0 }, 'priority', 'priority must be at least 1.'],
    [{ priority: 2.5 }, 'priority', `priority must be a whole number from -2147483648 to 2147483647.`],
    [{ title: 'far too long' }, 'title', 'title must be at most 5 characters long.'],
    [{ title: 'x' }, 'title', 'title must be at least 2 characters long.'],
    [{ status: 'later' }, 'status', 'status must be one of "open", "done".'],
    [{ title: 123 }, 'title', 'title must be a string without NUL characters or unpaired surrogates.'],
  ]
  for (const [payload, field, message] of cases) {
    const answer = await admin('POST', '/api/v1/tasks', { payload })
    assert.equal(answer.status, 400, JSON.stringify(payload))
    assert.equal(answer.body.type, 'urn:service:problem:invalid-record')
    assert.deepEqual(answer.body.errors, [{ field, code: 'invalid', message }])
  }
})

test('a missing record says so in a sentence', async () => {
  const answer = await admin('GET', '/api/v1/tasks/999')
  assert.equal(answer.status, 404)
  assert.equal(answer.body.detail, 'No tasks record has this key.')
})

test('a route that takes no query parameters says so when given one', async () => {
  const answer = await admin('GET', '/api/meta?x=1')
  assert.equal(answer.status, 400)
  assert.deepEqual(answer.body.errors, [{ parameter: 'x', message: "Unknown parameter 'x': this route takes no query parameters." }])
})

test('validate\'s issues are field errors; an answer that is not a list is a 500, and nothing is written', async () => {
  const bad = await admin('POST', '/api/v1/checked', { payload: { title: 'bad' } })
  assert.deepEqual([bad.status, bad.body.errors], [400, [{ field: 'title', code: 'invalid', message: 'title is bad.' }]])
  const buggy = await admin('POST', '/api/v1/checked', { payload: { title: 'buggy' } })
  assert.equal(buggy.status, 500)
  assert.equal(buggy.body.type, 'urn:service:problem:internal-error')
  assert.deepEqual((await admin('GET', '/api/v1/checked')).body.items, [])
})
