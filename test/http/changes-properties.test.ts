// Property: random writes by several callers (creates, updates that move rows across owners,
// statuses and soft delete, undeletes, hard deletes, batches, plain SQL), followed by random
// subscribers (a caller and a filter each). Each subscriber's events, replayed onto the list it
// read after taking its token, give exactly its list at the end: records, etags and all.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `CREATE TABLE items (id serial PRIMARY KEY, status text NOT NULL, n integer NOT NULL, secret text NOT NULL DEFAULT '',
  owner_id text NOT NULL, deleted_at timestamptz)`)
const app = await buildApp({
  databaseUrl,
  roles: { admin: ['*'], user: ['items.read.own', 'items.create.own', 'items.update.own', 'items.delete.own'], viewer: ['items.read'] },
  resources: {
    items: {
      owner: 'owner_id',
      softDelete: 'deleted_at',
      changes: { capture: 'trigger' },
      fields: { id: { type: 'integer', readOnly: true }, status: { type: 'string' }, n: { type: 'integer' }, secret: { type: 'string' }, owner_id: { type: 'string' } },
      access: { fields: { secret: { read: ['admin'] } } },
    },
  },
})
const USERS = ['ann', 'bob'] as const
await createUser(app, 'admin@example.com')
await createUser(app, 'vic@example.com', 'viewer')
for (const name of USERS) await createUser(app, `${name}@example.com`, 'user')
const ids = Object.fromEntries(await Promise.all(USERS.map(async (name) => [name, (await usersOf(app).findByEmail(`${name}@example.com`))!.id]))) as Record<typeof USERS[number], string>
const calls = {
  admin: caller(app, await bearer(app, 'admin@example.com')),
  vic: caller(app, await bearer(app, 'vic@example.com')),
  ann: caller(app, await bearer(app, 'ann@example.com')),
  bob: caller(app, await bearer(app, 'bob@example.com')),
}
type Who = keyof typeof calls
// A row each subscriber sees whatever its filter, renamed at the end of each round: its event
// says every change before it has been read. Users see their own rows only, so each has one.
const markers: Record<Who, number> = { admin: 0, vic: 0, ann: 0, bob: 0 }
for (const name of USERS) markers[name] = (await calls.admin('POST', '/api/v1/items', { payload: { status: 'marker', n: 0, owner_id: ids[name] } })).body.id
markers.admin = markers.vic = markers.ann
const markerIds = new Set(Object.values(markers))

type Step =
  | { kind: 'create', who: typeof USERS[number], status: string, n: number }
  | { kind: 'update', target: number, status?: string, n?: number, secret?: string, owner?: typeof USERS[number] }
  | { kind: 'delete' | 'undelete' | 'purge', target: number }
  | { kind: 'batch', status: string, target: number }

const STATUSES = ['a', 'b']
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), who: fc.constantFrom(...USERS), status: fc.constantFrom(...STATUSES), n: fc.integer({ min: 0, max: 9 }) }),
  fc.record({
    kind: fc.constant('update' as const),
    target: fc.nat(9),
    status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
    n: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    secret: fc.option(fc.constantFrom('s', 't'), { nil: undefined }),
    owner: fc.option(fc.constantFrom(...USERS), { nil: undefined }),
  }, { requiredKeys: ['kind', 'target'] }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'undelete' as const, 'purge' as const), target: fc.nat(9) }),
  fc.record({ kind: fc.constant('batch' as const), status: fc.constantFrom(...STATUSES), target: fc.nat(9) }),
)
const FILTERS = ['', 'status = "a"', 'n > 4', 'status = "b" AND n < 5']
const subscriber = fc.record({ who: fc.constantFrom<Who>('admin', 'vic', 'ann', 'bob'), filter: fc.constantFrom(...FILTERS) })

async function existing (): Promise<number[]> {
  const got = await calls.admin('GET', '/api/v1/items?page_size=1000&show_deleted=true')
  return (got.body.items as Array<{ id: number }>).map((r) => r.id).filter((id) => !markerIds.has(id)).sort((a, b) => a - b)
}

async function apply (s: Step): Promise<void> {
  const rows = await existing()
  const target = rows.length === 0 ? undefined : rows[s.kind === 'create' ? 0 : s.target % rows.length]
  switch (s.kind) {
    case 'create':
      await calls[s.who]('POST', '/api/v1/items', { payload: { status: s.status, n: s.n } })
      return
    case 'update': {
      if (target === undefined) return
      const sets = [
        s.status === undefined ? '' : `status = '${s.status}'`, s.n === undefined ? '' : `n = ${s.n}`,
        s.secret === undefined ? '' : `secret = '${s.secret}'`, s.owner === undefined ? '' : `owner_id = '${ids[s.owner]}'`,
      ].filter((x) => x !== '')
      if (sets.length > 0) await runSql(databaseUrl, `UPDATE items SET ${sets.join(', ')} WHERE id = ${target}`)
      return
    }
    case 'delete':
      if (target !== undefined) await calls.admin('DELETE', `/api/v1/items/${target}`, { headers: { 'if-match': '*' } })
      return
    case 'undelete':
      if (target !== undefined) await calls.admin('POST', `/api/v1/items/${target}:undelete`)
      return
    case 'purge':
      if (target !== undefined) await runSql(databaseUrl, `DELETE FROM items WHERE id = ${target}`)
      return
    case 'batch':
      await calls.admin('POST', '/api/v1:batchWrite', {
        payload: {
          operations: [
            { op: 'create', resource: 'items', data: { status: s.status, n: 1, owner_id: ids.ann } },
            ...(target === undefined ? [] : [{ op: 'update', resource: 'items', key: String(target), etag: '*', data: { n: 7 } }]),
          ],
        },
      })
  }
}

type Records = Map<string, unknown>

function listQuery (who: Who, filter: string): string {
  return filter === '' ? '' : `filter=${encodeURIComponent(`(${filter}) OR id = ${markers[who]}`)}`
}

async function listOf (who: Who, filter: string): Promise<Records> {
  const got = await calls[who]('GET', `/api/v1/items?page_size=1000&${listQuery(who, filter)}`)
  assert.equal(got.status, 200, JSON.stringify(got.body))
  return new Map((got.body.items as Array<{ id: number }>).filter((r) => !markerIds.has(r.id)).map((r) => [String(r.id), r]))
}

test('events replayed onto a subscriber\'s first list give its list at the end', async () => {
  let round = 0
  await fc.assert(fc.asyncProperty(fc.array(subscriber, { minLength: 1, maxLength: 4 }), fc.array(step, { minLength: 1, maxLength: 12 }), async (subscribers, steps) => {
    const title = `round ${++round}`
    const followed = []
    for (const { who, filter } of subscribers) {
      const token = (await calls[who]('GET', `/api/v1/items:changes?${listQuery(who, filter)}`)).body.next_page_token as string
      followed.push({ who, filter, token, records: await listOf(who, filter) })
    }
    for (const s of steps) await apply(s)
    await runSql(databaseUrl, `UPDATE items SET secret = '${title}', n = ${round} WHERE id IN (${[...markerIds].join(', ')})`)
    for (const subscription of followed) {
      const { who, filter, records } = subscription
      let token = subscription.token
      let done = false
      const deadline = Date.now() + 10_000
      while (!done) {
        assert.ok(Date.now() < deadline, 'the marker did not arrive')
        const got = await calls[who]('GET', `/api/v1/items:changes?wait=5&page_token=${encodeURIComponent(token)}&${listQuery(who, filter)}`)
        assert.equal(got.status, 200, JSON.stringify(got.body))
        token = got.body.next_page_token
        for (const event of got.body.changes as Array<{ type: string, key: string, record?: { n: number } }>) {
          if (markerIds.has(Number(event.key))) {
            if (event.key === String(markers[who]) && event.record?.n === round) done = true
            continue
          }
          if (event.type === 'left' || event.type === 'deleted') records.delete(event.key)
          else records.set(event.key, event.record)
        }
      }
      assert.deepEqual(records, await listOf(who, filter), `${who} with '${filter}'`)
    }
  }), { numRuns: 15 })
})
