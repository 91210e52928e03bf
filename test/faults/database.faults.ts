// The fault suite (`npm run test:faults`): `tablegate serve` as a real process on a PostgreSQL of
// its own, under a steady write load, while the database is hurt: a backend killed with SIGKILL
// (the postmaster then restarts every backend), every backend terminated, the postmaster stopped
// for longer than the connect timeout, the pool exhausted, the database restarted. Asserted: the
// process lives; every answer is a 201 or a 503/504 problem, within a bound; no acknowledged
// write is lost and none is partial (each has its audit row, written in the same transaction);
// service resumes promptly once PostgreSQL accepts connections again. How long PostgreSQL takes to
// get there (crash recovery after a killed backend, a restart) is the machine's time, not
// tablegate's: a connection of the suite's own tells when the database is back, and tablegate is
// timed from that moment.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'
import { withClient } from '../helpers/db.js'
import { freePort, startEmbedded, type EmbeddedDatabase } from '../../lib/db/embedded.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const cli = join(root, 'bin', 'tablegate.js')
const AUTH_SECRET = 'fault-suite-secret-0123456789abcdef'
const STATEMENT_TIMEOUT_MS = 1000
const CONNECT_TIMEOUT_MS = 500
/** No answer may take longer: a connection wait, a statement, the lost-backend sweep, and slack. */
const ANSWER_BOUND_MS = CONNECT_TIMEOUT_MS + 2 * STATEMENT_TIMEOUT_MS + 1500
/**
 * tablegate's own part of a recovery: from the moment the database answers a new connection to the
 * first acknowledged write. Eight writers retry back to back, so the next request after that
 * moment takes a new connection and writes two rows: a few milliseconds on a quiet machine, about
 * 60 ms at worst seen on a loaded 2-core one (20 runs beside the HTTP suite). The bound allows the
 * worst of a request in flight when the database came back (a failed connect, answered as 503)
 * and then a whole new one, with a wide margin; no pool backoff or health-check interval fits in it.
 */
const OWN_RECOVERY_BOUND_MS = 500

const dataDir = mkdtempSync(join(tmpdir(), 'tablegate-faults-'))
const pgPort = await freePort()
let database: EmbeddedDatabase = await startEmbedded(dataDir, { port: pgPort })
const adminUrl = database.url
const databaseUrl = adminUrl.replace(/\/postgres$/, '/faults')

const onDatabase = withClient

await onDatabase(adminUrl, async (c) => { await c.query('CREATE DATABASE faults') })
await onDatabase(databaseUrl, async (c) => {
  await c.query('CREATE TABLE ledger (id serial PRIMARY KEY, n integer NOT NULL UNIQUE, note text NOT NULL)')
  await c.query('CREATE TABLE slow (id serial PRIMARY KEY, note text NOT NULL)')
})

// The config: the audit log on the ledger (so a write is two inserts in one transaction), and a
// plugin that holds its connection on `slow` creates, to exhaust the pool.
const configFile = join(dataDir, 'tablegate.config.mjs')
writeFileSync(configFile, `
import fp from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', 'fastify-plugin', 'index.js')).href)}
import { auditLog, query, sql } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href)}
const slowWrites = fp(async (app) => {
  app.tablegate.addWriteHook(async (event, tx) => { await query(tx, sql\`SELECT pg_sleep(0.3)\`) }, { resources: ['slow'] })
}, { name: 'slow-writes', dependencies: ['tablegate'] })
export default {
  statementTimeoutMs: ${STATEMENT_TIMEOUT_MS},
  connectTimeoutMs: ${CONNECT_TIMEOUT_MS},
  poolSize: 4,
  plugins: [[auditLog, { resources: ['ledger'] }], slowWrites],
  resources: {
    ledger: { fields: { id: { type: 'integer', readOnly: true }, n: { type: 'integer', required: true }, note: { type: 'string', required: true } } },
    slow: { fields: { id: { type: 'integer', readOnly: true }, note: { type: 'string', required: true } } },
  },
}
`)
const env = { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET }
const run = (...args: string[]): string => execFileSync(process.execPath, [cli, ...args, '--config', configFile], { env, encoding: 'utf8' })
run('migrate')
run('user', 'create', '--email', 'admin@example.com', '--password', 'correct-horse-battery')
const token = (JSON.parse(run('token', '--email', 'admin@example.com', '--ttl', '3600', '--json')) as { token: string }).token

const apiPort = await freePort()
const server: ChildProcess = spawn(process.execPath, [cli, 'serve', '--config', configFile, '--port', String(apiPort), '--host', '127.0.0.1'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
let serverOutput = ''
server.stdout!.on('data', (chunk: Buffer) => { serverOutput += chunk.toString() })
server.stderr!.on('data', (chunk: Buffer) => { serverOutput += chunk.toString() })
await new Promise<void>((resolve, reject) => {
  const waiting = setInterval(() => { if (serverOutput.includes('tablegate is serving')) { clearInterval(waiting); resolve() } }, 50)
  server.once('exit', (code) => { clearInterval(waiting); reject(new Error(`serve exited with ${code}: ${serverOutput}`)) })
})

after(async () => {
  server.kill('SIGKILL')
  await database.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

interface Answer { readonly n: number, readonly status: number, readonly ms: number, readonly problem: boolean, readonly slug: string | undefined, readonly at: number }

const answers: Answer[] = []
let next = 1
let loading = true

/** A health check, as a load balancer makes it: no token. */
async function probe (path: string): Promise<{ status: number, type: string | null, body: string, ms: number }> {
  const started = Date.now()
  const response = await fetch(`http://127.0.0.1:${apiPort}${path}`)
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text(), ms: Date.now() - started }
}

/** One writer: POSTs ledger rows with increasing n until the load stops. */
async function writer (): Promise<void> {
  while (loading) {
    const n = next++
    const started = Date.now()
    try {
      const response = await fetch(`http://127.0.0.1:${apiPort}/api/v1/ledger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ n, note: `note ${n}` }),
        signal: AbortSignal.timeout(ANSWER_BOUND_MS * 3),
      })
      const text = await response.text()
      const problem = response.headers.get('content-type') === 'application/problem+json; charset=utf-8'
      const slug = problem ? (JSON.parse(text) as { type: string }).type.replace('urn:service:problem:', '') : undefined
      answers.push({ n, status: response.status, ms: Date.now() - started, problem, slug, at: Date.now() })
    } catch (err) {
      answers.push({ n, status: 0, ms: Date.now() - started, problem: false, slug: String((err as Error).message), at: Date.now() })
    }
  }
}

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

function postmaster (): number {
  return Number(readFileSync(join(dataDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0])
}

/** The server's backends on the application database. */
async function serverBackends (): Promise<number[]> {
  return await onDatabase(adminUrl, async (c) => (await c.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = 'faults' AND application_name LIKE 'tablegate%'")).rows.map((r) => r.pid))
}

/**
 * When PostgreSQL is back: the first moment a new connection of the suite's own (not tablegate's)
 * is accepted and answers `SELECT 1`. Tried every 10 ms; a refusal (in recovery, shutting down,
 * not started) or a connect timeout (a stopped postmaster) means not yet.
 */
async function databaseAccepts (within = 60_000): Promise<number> {
  const deadline = Date.now() + within
  while (Date.now() < deadline) {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1000 })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('SELECT 1')
      return Date.now()
    } catch {
      await sleep(10)
    } finally {
      await client.end().catch(() => {})
    }
  }
  throw new Error(`the database did not accept a connection within ${within} ms`)
}

/** A connection of the suite's own, held open: it ends when the postmaster ends every backend. */
async function backendWatch (): Promise<{ ended: Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const ended = new Promise<void>((resolve) => {
    client.on('error', () => { resolve() })
    client.on('end', () => { resolve() })
  })
  return { ended }
}

/** Waits until a 201 is answered after `since`; returns when it was. */
async function firstSuccessAfter (since: number, within: number): Promise<number> {
  const deadline = since + within
  while (Date.now() < deadline + 1000) {
    const ok = answers.find((a) => a.status === 201 && a.at >= since)
    if (ok !== undefined) return ok.at
    await sleep(20)
  }
  return Number.POSITIVE_INFINITY
}

/** Per fault: PostgreSQL's own time back (ms from the fault to a new connection), and tablegate's after that. */
const recovery: Record<string, { database: number, tablegate: number }> = {}

async function timeRecovery (fault: string, hurt: number, databaseBack: number): Promise<void> {
  const served = await firstSuccessAfter(databaseBack, OWN_RECOVERY_BOUND_MS * 4)
  recovery[fault] = { database: databaseBack - hurt, tablegate: served - databaseBack }
}

test('the server lives through every fault, answers each request with a 201 or a 503/504 problem in time, and recovers', { timeout: 120_000 }, async () => {
  const writers = Array.from({ length: 8 }, async () => { await writer() })
  // Whatever fails on the way, the writers stop: left running, they would keep the process alive.
  try {
    await sleep(1000)

    // 1. SIGKILL of one backend: the postmaster ends every backend (the suite's held connection
    // among them, which says the reset has begun) and runs crash recovery.
    const [victim] = await serverBackends()
    assert.ok(victim !== undefined, 'the server has backends')
    const reset = await backendWatch()
    let hurt = Date.now()
    process.kill(victim, 'SIGKILL')
    await reset.ended
    await timeRecovery('killedBackend', hurt, await databaseAccepts())
    await sleep(1000)

    // 2. Every backend terminated: the database itself never stops accepting.
    hurt = Date.now()
    await onDatabase(adminUrl, async (c) => { await c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'faults' AND application_name LIKE 'tablegate%'") })
    await timeRecovery('terminatedBackends', hurt, Date.now())
    await sleep(1000)

    // 3. The postmaster stopped for longer than the connect timeout: new connections hang.
    process.kill(postmaster(), 'SIGSTOP')
    await sleep(CONNECT_TIMEOUT_MS * 4)
    process.kill(postmaster(), 'SIGCONT')
    hurt = Date.now()
    await timeRecovery('stoppedPostmaster', hurt, await databaseAccepts())
    await sleep(1000)

    // 4. The pool exhausted: 30 writes that each hold a connection 0.3 s, on a pool of 4.
    const slow = await Promise.all(Array.from({ length: 30 }, async () => {
      const started = Date.now()
      const response = await fetch(`http://127.0.0.1:${apiPort}/api/v1/slow`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'slow' }),
      })
      return { status: response.status, type: response.headers.get('content-type'), retry: response.headers.get('retry-after'), ms: Date.now() - started }
    }))
    assert.ok(slow.some((r) => r.status === 201), 'some slow writes are served')
    for (const r of slow.filter((r) => r.status !== 201)) {
      assert.equal(r.status, 503)
      assert.equal(r.type, 'application/problem+json; charset=utf-8')
      assert.equal(r.retry, '1')
      assert.ok(r.ms < ANSWER_BOUND_MS, `a refused slow write took ${r.ms} ms`)
    }
    await sleep(500)

    // 5. The database restarted. While it is down the process is alive but not ready, and says
    // so within a second; ready again once it is back.
    await database.stop()
    await sleep(1500)
    const [alive, ready] = await Promise.all([probe('/healthz'), probe('/readyz')])
    assert.deepEqual([alive.status, alive.body], [200, '{"status":"ok"}'])
    assert.equal(ready.status, 503)
    assert.equal(ready.type, 'application/problem+json; charset=utf-8')
    assert.match(ready.body, /^\{"type":"urn:service:problem:service-unavailable".*Not ready: the database cannot be reached/)
    assert.ok(ready.ms < 1500, `readiness took ${ready.ms} ms`)
    hurt = Date.now()
    database = await startEmbedded(dataDir, { port: pgPort })
    await timeRecovery('restartedDatabase', hurt, await databaseAccepts())
    await sleep(1000)

  } finally {
    loading = false
    await Promise.all(writers)
  }
  assert.deepEqual(await probe('/readyz').then((r) => [r.status, r.body]), [200, '{"status":"ready"}'])

  assert.equal(server.exitCode, null, `the server process ended: ${serverOutput}`)
  assert.equal(server.signalCode, null)
  const failed = answers.filter((a) => a.status !== 201)
  assert.ok(failed.length > 0, 'the faults were felt')
  for (const a of failed) {
    assert.ok(a.problem && (a.status === 503 || a.status === 504), `write ${a.n}: ${a.status} ${a.slug ?? ''}`)
  }
  const slowest = Math.max(...answers.map((a) => a.ms))
  assert.ok(slowest < ANSWER_BOUND_MS, `the slowest answer took ${slowest} ms`)
  for (const [fault, { database: down, tablegate: own }] of Object.entries(recovery)) {
    assert.ok(own <= OWN_RECOVERY_BOUND_MS, `${fault}: service resumed ${own} ms after the database accepted connections again (PostgreSQL took ${down} ms)`)
  }

  // Every acknowledged write is stored whole: its row and its audit row; nothing else is.
  const acknowledged = new Set(answers.filter((a) => a.status === 201).map((a) => a.n))
  const { ledger, audited } = await onDatabase(databaseUrl, async (c) => ({
    ledger: (await c.query<{ id: number, n: number, note: string }>('SELECT id, n, note FROM ledger')).rows,
    audited: (await c.query<{ record_key: string }>("SELECT record_key FROM tablegate_audit_log WHERE resource = 'ledger' AND operation = 'create'")).rows,
  }))
  const stored = new Map(ledger.map((r) => [r.n, r]))
  for (const n of acknowledged) assert.equal(stored.get(n)?.note, `note ${n}`, `acknowledged write ${n} is stored`)
  const auditedIds = audited.map((r) => Number(r.record_key)).sort((a, b) => a - b)
  assert.deepEqual(auditedIds, ledger.map((r) => r.id).sort((a, b) => a - b), 'each stored write has exactly its audit row')
  console.log(`faults: ${answers.length} writes, ${acknowledged.size} acknowledged and all stored, ${failed.length} refused (${[...new Set(failed.map((a) => `${a.status} ${a.slug}`))].join(', ')}); slowest answer ${slowest} ms; recovery ms: ${JSON.stringify(recovery)}`)
})

test('SIGTERM lets the requests in flight finish, then the process exits 0', { timeout: 30_000 }, async () => {
  const inFlight = Array.from({ length: 3 }, async () => await fetch(`http://127.0.0.1:${apiPort}/api/v1/slow`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ note: 'in flight at shutdown' }),
  }))
  await sleep(100)
  const signalled = Date.now()
  const exited = new Promise<number | null>((resolve) => { server.once('exit', (code) => { resolve(code) }) })
  server.kill('SIGTERM')
  assert.deepEqual((await Promise.all(inFlight)).map((r) => r.status), [201, 201, 201])
  assert.equal(await exited, 0, serverOutput.split("\n").filter((l) => !l.startsWith("{")).join("\n"))
  const took = Date.now() - signalled
  assert.ok(took < 5000, `exited ${took} ms after SIGTERM`)
  const stored = await onDatabase(databaseUrl, async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM slow WHERE note = 'in flight at shutdown'")).rows[0]!.n)
  assert.equal(stored, 3)
})
