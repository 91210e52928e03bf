// A feed server process killed (SIGKILL) while writes go on through another process: a client
// that resumes on a new process, by Last-Event-ID (SSE) or by its last next_page_token (JSON),
// receives every acknowledged write exactly once, and nothing else.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshDatabase, releaseBeforeDrop, runSql } from '../helpers/db.js'
import { buildApp, bearer, caller, createUser, TEST_SECRET } from '../helpers/app.js'
import { freePort } from '../../lib/db/embedded.js'
import { openStream, type SseStream } from '../helpers/sse.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const cli = join(root, 'bin', 'tablegate.js')
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE ledger (id serial PRIMARY KEY, n integer NOT NULL UNIQUE)')
const resources = { ledger: { changes: {}, fields: { id: { type: 'integer' as const, readOnly: true }, n: { type: 'integer' as const, required: true } } } }
// The writers' process: in this one, so it lives on while the feed's process is killed.
const writers = await buildApp({ databaseUrl, resources })
await createUser(writers, 'admin@example.com')
const auth = await bearer(writers, 'admin@example.com')
const dir = mkdtempSync(join(tmpdir(), 'tablegate-changes-kill-'))
const configFile = join(dir, 'tablegate.config.json')
writeFileSync(configFile, JSON.stringify({ resources }))
const running: ChildProcess[] = []
after(releaseBeforeDrop(databaseUrl, () => { for (const server of running) server.kill('SIGKILL') }))
after(() => { rmSync(dir, { recursive: true, force: true }) })

async function serve (): Promise<string> {
  const port = await freePort()
  const server = spawn(process.execPath, [cli, 'serve', '--config', configFile, '--port', String(port), '--host', '127.0.0.1'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: TEST_SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(server)
  let output = ''
  server.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  server.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await new Promise<void>((resolve, reject) => {
    const waiting = setInterval(() => { if (output.includes('tablegate is serving')) { clearInterval(waiting); resolve() } }, 20)
    server.once('exit', (code) => { clearInterval(waiting); reject(new Error(`serve exited with ${code}: ${output}`)) })
  })
  return `http://127.0.0.1:${port}`
}

const received = { sse: [] as number[], json: [] as number[] }

function take (stream: SseStream, seen: number): string | undefined {
  for (const event of stream.events.slice(seen)) if (event.event === 'message') received.sse.push((JSON.parse(event.data) as { record: { n: number } }).record.n)
  return stream.events.filter((e) => e.event === 'message').at(-1)?.id
}

/** Long-polls `base` from `token` until `stop()`, or until the server is gone; the last token. */
async function poll (base: string, token: string, stop: () => boolean): Promise<string> {
  while (!stop()) {
    let body: { changes: Array<{ record: { n: number } }>, next_page_token: string }
    try {
      const response = await fetch(`${base}/api/v1/ledger:changes?wait=1&page_token=${encodeURIComponent(token)}`, { headers: auth })
      body = await response.json() as typeof body
    } catch {
      return token
    }
    received.json.push(...body.changes.map((c) => c.record.n))
    token = body.next_page_token
  }
  return token
}

test('SIGKILL mid-stream: resumed on a new process, every acknowledged write arrives once, by Last-Event-ID and by page_token', async () => {
  const first = await serve()
  const stream = await openStream(`${first}/api/v1/ledger:changes`, auth)
  await stream.next((e) => e.event === 'ready')
  const start = (await caller(writers, auth)('GET', '/api/v1/ledger:changes')).body.next_page_token as string
  const acknowledged: number[] = []
  let writing = true
  let n = 0
  const write = async (): Promise<void> => {
    while (writing) {
      const mine = ++n
      const created = await caller(writers, auth)('POST', '/api/v1/ledger', { payload: { n: mine } })
      if (created.status === 201) acknowledged.push(mine)
    }
  }
  const load = Promise.all([write(), write(), write()])
  let killed = false
  const firstPolls = poll(first, start, () => killed)
  await stream.next((e) => e.event === 'message', 30)
  running[0]!.kill('SIGKILL')
  killed = true
  await stream.ended.catch(() => {})
  const lastId = take(stream, 0)
  assert.ok(lastId !== undefined)
  const jsonToken = await firstPolls
  // Writes go on while no feed process runs.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const second = await serve()
  const resumed = await openStream(`${second}/api/v1/ledger:changes`, { ...auth, 'last-event-id': lastId })
  let stopped = false
  const secondPolls = poll(second, jsonToken, () => stopped)
  await new Promise((resolve) => setTimeout(resolve, 300))
  writing = false
  await load
  const expected = [...acknowledged].sort((a, b) => a - b)
  await resumed.next((e) => e.event === 'message' && (JSON.parse(e.data) as { record: { n: number } }).record.n === Math.max(...expected), 1, 15_000)
  const deadline = Date.now() + 15_000
  while (received.json.length < expected.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  stopped = true
  await secondPolls
  take(resumed, 0)
  resumed.close()
  assert.ok(expected.length > 30, `${expected.length} writes`)
  assert.deepEqual([...received.sse].sort((a, b) => a - b), expected)
  assert.deepEqual([...received.json].sort((a, b) => a - b), expected)
})
