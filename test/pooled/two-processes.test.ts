// Two `tablegate serve` processes (one of them `--workers 2`) behind PgBouncer in transaction
// mode, reads through a pooler entry of their own: under a thousand concurrent gets none answers
// 5xx, what one process issues (a token, an ETag) another accepts, the statement timeout still
// answers 504, and timestamps are UTC ISO though every server connection runs in Asia/Kolkata.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../../lib/db/embedded.js'
import type { Config } from '../../lib/config/schema.js'
import { buildApp, bearer, createUser, TEST_SECRET } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(root, 'bin', 'tablegate.js')

function readUrlOf (databaseUrl: string): string {
  const pooled = process.env.TEST_POOLED_READ_URL
  if (pooled === undefined || pooled === '') throw new Error('TEST_POOLED_READ_URL is not set: run with `npm run test:pooled`')
  const url = new URL(pooled)
  url.pathname = new URL(databaseUrl).pathname
  return url.toString()
}

const databaseUrl = await freshDatabase()
const name = new URL(databaseUrl).pathname.slice(1)
// Before any server connection to it exists: each one the pooler opens starts in this zone.
await runSql(databaseUrl.replace(`/${name}`, '/postgres'), `ALTER DATABASE "${name}" SET TimeZone = 'Asia/Kolkata'`)
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, at timestamptz NOT NULL DEFAULT now());
  INSERT INTO notes (body, at) SELECT 'note ' || n, '2026-01-02T03:04:05.123456Z' FROM generate_series(1, 20) AS n;
  CREATE VIEW sessions AS SELECT 1 AS id, current_setting('default_transaction_read_only') AS read_only, current_setting('TimeZone') AS zone;
  CREATE VIEW sleepy AS SELECT n AS id, pg_sleep(5)::text AS nap FROM generate_series(1, 1) AS n;
`)
const resources: Config['resources'] = {
  notes: { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string' }, at: { type: 'timestamp', dbDefault: true } } },
  sessions: { fields: { id: { type: 'integer', readOnly: true }, read_only: { type: 'string' }, zone: { type: 'string' } } },
  sleepy: { fields: { id: { type: 'integer', readOnly: true }, nap: { type: 'string' } } },
}
const dir = mkdtempSync(join(tmpdir(), 'tablegate-pooled-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })
const configFile = join(dir, 'config.json')
writeFileSync(configFile, JSON.stringify({ statementTimeoutMs: 1500, resources, dataDir: join(dir, 'data') }))
const publicUrl = 'http://tablegate.test'
const app = await buildApp({ databaseUrl, publicUrl, resources })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

interface Served { readonly url: string, readonly child: ChildProcess }

async function serve (args: string[]): Promise<Served> {
  const port = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATABASE_READ_URL: readUrlOf(databaseUrl),
    DATABASE_POOLER: 'transaction',
    DATABASE_POOL_SIZE: '4',
    AUTH_SECRET: TEST_SECRET,
    AUTH_URL: publicUrl,
  }
  delete env.NODE_OPTIONS
  const child = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1', '--port', String(port), '--config', configFile, '--log-format', 'json', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; if (output.includes('tablegate is serving')) resolve() })
    child.on('close', (code) => { reject(new Error(`serve exited ${code}: ${output}`)) })
  })
  return { url: `http://127.0.0.1:${port}`, child }
}

async function stop ({ child }: Served): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve))
  child.kill('SIGTERM')
  return await closed
}

let one: Served
let other: Served
before(async () => {
  [one, other] = await Promise.all([serve(['--workers', '2']), serve([])])
})
after(async () => { await Promise.all([stop(one), stop(other)]) })

async function get (base: Served, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`${base.url}/api/v1/${path}`, { headers: { ...auth, ...headers } })
}

test('a thousand concurrent gets on both processes: none answers 5xx', async () => {
  const statuses = await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
    const response = await get(i % 2 === 0 ? one : other, i % 4 < 2 ? `notes/${1 + (i % 20)}` : 'notes?page_size=10')
    await response.arrayBuffer()
    return response.status
  }))
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  assert.deepEqual([...counts], [[200, 1000]])
})

test('a token and an ETag from one process hold at the other', async () => {
  const first = await get(one, 'notes/1')
  assert.equal(first.status, 200)
  const etag = first.headers.get('etag')!
  const unchanged = await get(other, 'notes/1', { 'if-none-match': etag })
  assert.equal(unchanged.status, 304)
  const patched = await fetch(`${other.url}/api/v1/notes/1`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', 'if-match': etag }, body: JSON.stringify({ body: 'changed' }) })
  assert.equal(patched.status, 200)
  const stale = await fetch(`${one.url}/api/v1/notes/1`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', 'if-match': etag }, body: JSON.stringify({ body: 'again' }) })
  assert.equal(stale.status, 412)
})

test('timestamps are UTC ISO though the server connections run in another zone; reads go through the read-only entry', async () => {
  const session = await (await get(other, 'sessions/1')).json() as { read_only: string, zone: string }
  assert.deepEqual([session.read_only, session.zone], ['on', 'Asia/Kolkata'])
  const note = await (await get(one, 'notes/2')).json() as { at: string }
  assert.equal(note.at, '2026-01-02T03:04:05.123456Z')
  const created = await fetch(`${other.url}/api/v1/notes`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'new' }) })
  assert.equal(created.status, 201)
  const body = await created.json() as { at: string }
  assert.match(body.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  assert.ok(Math.abs(Date.parse(body.at) - Date.now()) < 60_000, body.at)
})

test('the statement timeout answers 504 through the pooler, and the process serves on', async () => {
  for (const base of [one, other]) {
    const slow = await get(base, 'sleepy/1')
    assert.equal(slow.status, 504)
    assert.equal((await slow.json() as { type: string }).type, 'urn:service:problem:statement-timeout')
    assert.equal((await get(base, 'notes/3')).status, 200)
  }
})

test('serve --workers stops all its workers on SIGTERM and exits 0', async () => {
  assert.equal(await stop(one), 0)
})
