// The change feed as Server-Sent Events on a listening server, read with fetch as a browser would:
// ids that resume either transport, heartbeats that carry the position on, one statement per
// window for followers who ask the same question, streams that end when their caller is revoked
// or their token expires, the caps, and the retention.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type AddressInfo } from 'node:net'
import { freshDatabase, releaseBeforeDrop, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import { openStream, type SseEvent, type SseStream } from '../helpers/sse.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL, owner_id text NOT NULL)')
const app = await buildApp({
  databaseUrl,
  revocationPollMs: 100,
  roles: { admin: ['*'], user: ['tasks.read.own', 'tasks.create.own'], viewer: ['tasks.read'] },
  changes: { heartbeatSeconds: 1, streamsPerCaller: 3 },
  // The overflow test's titles are 100,000 characters.
  textMaxLength: 200_000,
  resources: { tasks: { owner: 'owner_id', changes: {}, fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, owner_id: { type: 'string' } } } },
})
await app.listen({ port: 0, host: '127.0.0.1' })
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
const streams: SseStream[] = []
after(releaseBeforeDrop(databaseUrl, () => { for (const stream of streams) stream.close() }))
for (const [email, role] of [['admin@example.com', 'admin'], ['root@example.com', 'admin'], ['ann@example.com', 'user'], ['bob@example.com', 'user'], ['vic@example.com', 'viewer']] as const) {
  await createUser(app, email, role)
}
const adminAuth = await bearer(app, 'admin@example.com')
const admin = caller(app, adminAuth)

async function follow (auth: Record<string, string>, query = '', headers: Record<string, string> = {}): Promise<SseStream> {
  const stream = await openStream(`${base}/api/v1/tasks:changes${query === '' ? '' : `?${query}`}`, { ...auth, ...headers })
  streams.push(stream)
  assert.equal(stream.status, 200)
  assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  await stream.next((e) => e.event === 'ready')
  return stream
}

const changes = (e: SseEvent): boolean => e.event === 'message'
const titles = (events: SseEvent[]): string[] => events.map((e) => JSON.parse(e.data).record.title as string)

/** A task created by `auth`; the admin's names its owner, a user's is their own. */
async function create (auth: Record<string, string>, title: string): Promise<void> {
  const payload = auth === adminAuth ? { title, owner_id: 'admin' } : { title }
  const created = await caller(app, auth)('POST', '/api/v1/tasks', { payload })
  assert.equal(created.status, 201, JSON.stringify(created.body))
}

test('ready gives a resume id; each change comes with its id; Last-Event-ID and page_token resume after it, nothing twice', async () => {
  const stream = await follow(adminAuth)
  const ready = stream.events[0]!
  assert.equal(JSON.parse(ready.data).next_page_token, ready.id)
  await create(adminAuth, 's1')
  await create(adminAuth, 's2')
  const [, second] = await stream.next(changes, 2)
  stream.close()
  await create(adminAuth, 's3')
  await create(adminAuth, 's4')
  const resumed = await follow(adminAuth, '', { 'last-event-id': second!.id! })
  assert.deepEqual(titles(await resumed.next(changes, 2)), ['s3', 's4'])
  // An event id is a page_token of the JSON feed, and a next_page_token an SSE resume id.
  const polled = await admin('GET', `/api/v1/tasks:changes?page_token=${encodeURIComponent(second!.id!)}`)
  assert.deepEqual(polled.body.changes.map((e: { record: { title: string } }) => e.record.title), ['s3', 's4'])
  await create(adminAuth, 's5')
  const again = await follow(adminAuth, `page_token=${encodeURIComponent(polled.body.next_page_token)}`)
  assert.deepEqual(titles(await again.next(changes, 1)), ['s5'])
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(again.events.filter(changes).length, 1)
})

test('an id in the middle of a transaction\'s changes resumes after it, inside that transaction', async () => {
  const stream = await follow(adminAuth)
  const batch = await admin('POST', '/api/v1:batchWrite', {
    payload: { operations: ['b1', 'b2', 'b3'].map((title) => ({ op: 'create', resource: 'tasks', data: { title, owner_id: 'admin' } })) },
  })
  assert.equal(batch.status, 200)
  const [first] = await stream.next(changes, 3)
  stream.close()
  const resumed = await follow(adminAuth, '', { 'last-event-id': first!.id! })
  assert.deepEqual(titles(await resumed.next(changes, 2)), ['b2', 'b3'])
  const polled = await admin('GET', `/api/v1/tasks:changes?page_token=${encodeURIComponent(first!.id!)}`)
  assert.deepEqual(polled.body.changes.map((e: { record: { title: string } }) => e.record.title), ['b2', 'b3'])
  resumed.close()
})

test('a heartbeat comment every heartbeatSeconds carries the position on past changes the caller does not see', async () => {
  const annAuth = await bearer(app, 'ann@example.com')
  const stream = await follow(annAuth)
  await create(adminAuth, 'not for ann')
  const beat = await waitFor(() => stream.comments.find((c) => c.text === 'heartbeat' && c.id !== stream.events[0]!.id))
  assert.equal(stream.events.filter(changes).length, 0)
  // Resuming from the heartbeat's id reads nothing already passed.
  const polled = await caller(app, annAuth)('GET', `/api/v1/tasks:changes?page_token=${encodeURIComponent(beat.id!)}`)
  assert.deepEqual(polled.body.changes, [])
})

async function waitFor<T> (find: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await find()
    if (found !== undefined) return found
    if (Date.now() > deadline) assert.fail(`nothing within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function metric (name: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/api/metrics', headers: adminAuth })).body
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  assert.ok(line !== undefined, `no ${name} in ${text}`)
  return Number(line.split(' ')[1])
}

test('followers who ask the same question share one statement per window of changes, whatever their number', async () => {
  for (const stream of streams) stream.close()
  await waitFor(async () => await metric('tablegate_change_followers') === 0 ? true : undefined)
  const rootAuth = await bearer(app, 'root@example.com')
  const [annAuth, bobAuth] = [await bearer(app, 'ann@example.com'), await bearer(app, 'bob@example.com')]
  // Two admins (every row) three times each, and two users whose own rows are different questions.
  const following = [
    await follow(adminAuth), await follow(adminAuth), await follow(adminAuth),
    await follow(rootAuth), await follow(rootAuth), await follow(rootAuth),
    await follow(annAuth), await follow(bobAuth),
  ]
  assert.equal(await metric('tablegate_change_followers'), 8)
  assert.equal(await metric('tablegate_change_cohorts'), 3)
  const before = { windows: await metric('tablegate_change_windows_total'), reads: await metric('tablegate_change_reads_total') }
  await create(annAuth, 'shared')
  for (const stream of [...following.slice(0, 7)]) assert.deepEqual(titles(await stream.next(changes)), ['shared'])
  const windows = await metric('tablegate_change_windows_total') - before.windows
  const reads = await metric('tablegate_change_reads_total') - before.reads
  assert.ok(windows >= 1)
  assert.equal(reads, 3 * windows, `${reads} statements for ${windows} windows`)
  assert.equal(following[7]!.events.filter(changes).length, 0)
  for (const stream of following) stream.close()
})

test('a ban ends the caller\'s stream with revoked within the revocation bound; a role change with access-changed', async () => {
  await createUser(app, 'cat@example.com', 'viewer')
  await createUser(app, 'dan@example.com', 'viewer')
  const banned = await follow(await bearer(app, 'cat@example.com'))
  const demoted = await follow(await bearer(app, 'dan@example.com'))
  const started = Date.now()
  await usersOf(app).setBanned('cat@example.com', true)
  await usersOf(app).setRole('dan@example.com', 'user')
  await banned.ended
  await demoted.ended
  assert.ok(Date.now() - started < 2000, `ended after ${Date.now() - started} ms`)
  assert.deepEqual(banned.events.at(-1), { event: 'revoked', data: '{"reason":"token-revoked"}', id: banned.events[0]!.id })
  assert.equal(demoted.events.at(-1)!.event, 'revoked')
  assert.deepEqual(JSON.parse(demoted.events.at(-1)!.data), { reason: 'access-changed' })
})

test('at its token\'s expiry a stream ends with reauth; a new token and the last id lose nothing', async () => {
  const { token } = await usersOf(app).issueToken('vic@example.com', { ttlSeconds: 2 })
  const stream = await follow({ authorization: `Bearer ${token}` })
  await create(adminAuth, 'before expiry')
  await stream.ended
  const last = stream.events.at(-1)!
  assert.equal(last.event, 'reauth')
  // Whether the first change came before the expiry depends on the cluster's other transactions
  // (the feed waits for them, docs/changes.md): what the stream did not send, the resumed one does.
  const sent = titles(stream.events.filter(changes))
  await create(adminAuth, 'after expiry')
  const resumed = await follow(await bearer(app, 'vic@example.com'), '', { 'last-event-id': last.id! })
  assert.deepEqual([...sent, ...titles(await resumed.next(changes, 2 - sent.length))], ['before expiry', 'after expiry'])
})

test('a caller holds streamsPerCaller streams at once: the next is 429 with Retry-After', async () => {
  await createUser(app, 'eve@example.com', 'viewer')
  const auth = await bearer(app, 'eve@example.com')
  const open = [await follow(auth), await follow(auth), await follow(auth)]
  const refused = await fetch(`${base}/api/v1/tasks:changes`, { headers: { ...auth, accept: 'text/event-stream' } })
  assert.equal(refused.status, 429)
  assert.equal(refused.headers.get('retry-after'), '5')
  assert.equal(((await refused.json()) as { type: string }).type, 'urn:service:problem:too-many-requests')
  open[0]!.close()
  await waitFor(async () => (await fetch(`${base}/api/v1/tasks:changes?wait=0`, { headers: auth })).status === 200 ? true : undefined)
  const another = await follow(auth)
  another.close()
  for (const stream of open) stream.close()
})

test('a token older than the retention is 410 changes-expired', async () => {
  const short = await buildApp({
    databaseUrl,
    roles: { admin: ['*'] },
    changes: { retention: '1s' },
    resources: { tasks: { owner: 'owner_id', changes: {}, fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, owner_id: { type: 'string' } } } },
  })
  try {
    const auth = await bearer(short, 'admin@example.com')
    const token = (await caller(short, auth)('GET', '/api/v1/tasks:changes')).body.next_page_token
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const expired = await caller(short, auth)('GET', `/api/v1/tasks:changes?page_token=${encodeURIComponent(token)}`)
    assert.equal(expired.status, 410)
    assert.equal(expired.body.type, 'urn:service:problem:changes-expired')
    assert.match(expired.body.detail, /list the records again/)
  } finally {
    await short.close()
  }
})

test('closing the server ends each stream with unavailable, and its last id resumes on another process', async () => {
  const other = await buildApp({
    databaseUrl,
    roles: { admin: ['*'] },
    resources: { tasks: { owner: 'owner_id', changes: {}, fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, owner_id: { type: 'string' } } } },
  })
  await other.listen({ port: 0, host: '127.0.0.1' })
  const auth = await bearer(other, 'admin@example.com')
  const stream = await openStream(`http://127.0.0.1:${(other.server.address() as AddressInfo).port}/api/v1/tasks:changes`, auth)
  await stream.next((e) => e.event === 'ready')
  await create(adminAuth, 'seen on the other')
  const [seen] = await stream.next(changes)
  await other.close()
  await stream.ended
  assert.equal(stream.events.at(-1)!.event, 'unavailable')
  await create(adminAuth, 'after the close')
  const resumed = await follow(auth, '', { 'last-event-id': seen!.id! })
  assert.deepEqual(titles(await resumed.next(changes)), ['after the close'])
})

test('a reader that does not read is cut with overflow once 1 MiB waits unsent, after what it was sent, never buffered without bound', async () => {
  for (const stream of streams) stream.close()
  await waitFor(async () => await metric('tablegate_change_followers') === 0 ? true : undefined)
  const { port } = app.server.address() as AddressInfo
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (chunk: Buffer) => { received += chunk.toString() })
  socket.write(`GET /api/v1/tasks:changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: ${adminAuth.authorization}\r\n\r\n`)
  await waitFor(() => received.includes('event: ready') ? true : undefined)
  socket.pause()
  const title = 'x'.repeat(100_000)
  for (let i = 0; i < 80; i++) await create(adminAuth, `${i} ${title}`)
  await waitFor(async () => await metric('tablegate_change_followers') === 0 ? true : undefined, 15_000)
  socket.resume()
  await waitFor(() => received.endsWith('0\r\n\r\n') ? true : undefined)
  socket.destroy()
  const events = received.split('\n\n').filter((block) => block.includes('data: '))
  assert.match(events.at(-1)!, /event: overflow\r?\n(?:\r\n[0-9a-f]+\r\n)?data: \{\}/)
  const changes = events.filter((block) => block.includes('"type":"created"'))
  assert.ok(changes.length < 80, `${changes.length} changes were sent`)
})
