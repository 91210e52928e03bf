// `tablegate serve` on its embedded PostgreSQL, as a real process: it leaves nothing running when
// it cannot listen or is stopped while it starts, and a second server on the same embedded
// database is refused, as the first to stop would stop the database under the other.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, isAlive } from '../../lib/db/embedded.js'
import { cliRunnerInProcess, stdoutOf } from '../helpers/cli.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(root, 'bin', 'tablegate.js')
const dir = mkdtempSync(join(tmpdir(), 'tablegate-serve-embedded-'))
const dataDir = join(dir, 'data')
const config = join(dir, 'tablegate.config.mjs')
writeFileSync(config, `export default { roles: ['admin', 'user'], dataDir: ${JSON.stringify(dataDir)} }\n`)
const secret = 'serve-embedded-secret-0123456789'
const env: Record<string, string | undefined> = { ...process.env, AUTH_SECRET: secret }
for (const key of ['DATABASE_URL', 'TABLEGATE_CONFIG', 'AUTH_URL', 'PORT', 'NODE_OPTIONS']) delete env[key]

interface Run { child: ChildProcess, output: () => string, exited: Promise<number | null> }

function start (port: number, more: readonly string[] = [], extraEnv: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [bin, 'serve', '--config', config, '--port', String(port), '--host', '127.0.0.1', ...more], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] })
  after(() => { child.kill('SIGKILL') })
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  return { child, output: () => out, exited: new Promise((resolve) => { child.once('exit', resolve) }) }
}

async function until (check: () => boolean, ms = 60_000): Promise<void> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > ms) assert.fail('timed out')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The embedded postmaster's pid, while its pid file is there. */
function postmaster (): number | undefined {
  const file = join(dataDir, 'pgdata', 'postmaster.pid')
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined
}

after(async () => {
  await until(() => postmaster() === undefined || !isAlive(postmaster()!), 20_000).catch(() => {})
  // As root, the data lives where the postgres user can reach it, linked from the data directory.
  const link = join(dataDir, 'pgdata')
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() === true) rmSync(join(readlinkSync(link), '..'), { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
})

test('a port already taken: one line, exit 1, and the embedded database it started is stopped', { timeout: 60_000 }, async () => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  after(() => { taken.close() })
  const run = start((taken.address() as { port: number }).port)
  assert.equal(await run.exited, 1)
  assert.match(run.output(), /^tablegate: listen EADDRINUSE/m)
  assert.ok(postmaster() === undefined || !isAlive(postmaster()!), 'the embedded database is stopped')
})

test('SIGTERM while starting stops the server once it has started, with its embedded database', { timeout: 60_000 }, async () => {
  const run = start(await freePort())
  // The database is up, the server not yet listening.
  await until(() => postmaster() !== undefined && !run.output().includes('tablegate is serving'))
  const pid = postmaster()!
  run.child.kill('SIGTERM')
  assert.equal(await run.exited, 0)
  await until(() => !isAlive(pid), 20_000)
})

test('a second server on the same embedded database is refused in one line; the first serves on', { timeout: 60_000 }, async () => {
  const port = await freePort()
  const first = start(port)
  await until(() => first.output().includes('tablegate is serving'))
  const second = start(await freePort())
  assert.equal(await second.exited, 1)
  assert.match(second.output(), new RegExp(`^tablegate: another tablegate \\(pid ${first.child.pid}\\) serves the embedded database of `, 'm'))
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200)
  first.child.kill('SIGTERM')
  assert.equal(await first.exited, 0)
})

test('an embedded database that dies is started again on its port, and the server serves on', { timeout: 60_000 }, async () => {
  const port = await freePort()
  const run = start(port)
  await until(() => run.output().includes('tablegate is serving'))
  const killed = postmaster()!
  process.kill(killed, 'SIGKILL')
  await until(() => run.output().includes('the embedded PostgreSQL runs again'), 30_000)
  assert.match(run.output(), /the embedded PostgreSQL exited \(SIGKILL\); starting it again/)
  assert.notEqual(postmaster(), killed)
  let ready = 0
  await until(() => {
    void fetch(`http://127.0.0.1:${port}/readyz`).then((r) => { ready = r.status }, () => {})
    return ready === 200
  }, 30_000)
  run.child.kill('SIGTERM')
  assert.equal(await run.exited, 0, run.output())
})

test('--workers: SIGTERM closes every worker and ends at once, exit 0', { timeout: 60_000 }, async () => {
  const port = await freePort()
  const run = start(port, ['--workers', '2'])
  await until(() => run.output().includes('tablegate is serving'))
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200)
  // Each scrape reaches one worker: its series say which.
  // The commands beside it run in this process, on the same embedded database (no DATABASE_URL).
  const cli = stdoutOf(cliRunnerInProcess({ secret, config }))
  await cli(['user', 'create', '--email', 'admin@example.com', '--password', 'correct-horse-battery'])
  const token = await cli(['token', '--email', 'admin@example.com'])
  const metrics = await (await fetch(`http://127.0.0.1:${port}/api/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
  assert.match(metrics, /^tablegate_statement_timeouts_total\{worker="[12]"\} 0$/m)
  const asked = Date.now()
  run.child.kill('SIGTERM')
  assert.equal(await run.exited, 0)
  // Not the 35 s a hanging close is given: a worker that has closed ends.
  assert.ok(Date.now() - asked < 10_000, `stopped after ${Date.now() - asked} ms`)
  assert.doesNotMatch(run.output(), /exiting now/)
})

test('--workers: workers that cannot start end the supervisor with exit 1, in one line each', { timeout: 60_000 }, async () => {
  const run = start(await freePort(), ['--workers', '2'], { DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/app' })
  assert.equal(await run.exited, 1)
  assert.match(run.output(), /^tablegate: a worker failed to start, so all were stopped$/m)
  assert.match(run.output(), /^tablegate: cannot connect to DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:1\/app\)/m)
})
