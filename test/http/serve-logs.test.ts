// `tablegate serve` as a real process with its stdout a pipe: JSON log lines, a startup line that
// names the port it was told (or picked), and every 5xx logged with its request id and stack.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { freshDatabase } from '../helpers/db.js'
import { freePort } from '../../lib/db/embedded.js'
import { cliRunnerInProcess, stdoutOf } from '../helpers/cli.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(root, 'bin', 'tablegate.js')
const dir = mkdtempSync(join(tmpdir(), 'tablegate-serve-logs-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

// A plugin with two failing routes: one a bug (a plain Error), one a foreseen 503 problem.
const config = join(dir, 'tablegate.config.mjs')
writeFileSync(config, `
import fp from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', 'fastify-plugin', 'index.js')).href)}
import { problem } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href)}
function chargeTheCard () { throw new Error('the card service said no') }
export default {
  roles: ['admin', 'user'],
  dataDir: ${JSON.stringify(join(dir, 'data'))},
  plugins: [fp(async (app) => {
    app.get('/api/v1/charge', async () => chargeTheCard())
    app.get('/api/v1/busy', async () => { throw problem('service-unavailable', 'The card service is busy.') })
  }, { name: 'failing-routes', dependencies: ['tablegate'] })],
}
`)
const databaseUrl = await freshDatabase()
const secret = 'serve-logs-secret-0123456789abcdef'
const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: secret }
for (const key of ['TABLEGATE_CONFIG', 'AUTH_URL', 'PORT', 'NODE_OPTIONS']) delete env[key]
// The commands before serve run in this process; serve itself is spawned, its stdout a pipe.
const cli = stdoutOf(cliRunnerInProcess({ databaseUrl, secret, config }))
await cli(['user', 'create', '--email', 'admin@example.com', '--password', 'correct-horse-battery'])
const token = (JSON.parse(await cli(['token', '--email', 'admin@example.com', '--json'])) as { token: string }).token

interface Served { child: ChildProcess, startup: string, output: () => string }

/** Starts `serve` with the arguments given; resolves once it says it is serving. */
async function serve (...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', '--config', config, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  after(() => { child.kill('SIGKILL') })
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  const startup = await new Promise<string>((resolve, reject) => {
    const waiting = setInterval(() => {
      const line = out.split('\n').find((l) => l.startsWith('tablegate is serving'))
      if (line !== undefined) { clearInterval(waiting); resolve(line) }
    }, 20)
    child.once('exit', (code) => { clearInterval(waiting); reject(new Error(`serve exited ${code}: ${out}`)) })
  })
  return { child, startup, output: () => out }
}

interface LogLine { level: number, msg: string, reqId?: string, req?: { url: string }, problem?: string, err?: { type: string, message: string, stack: string } }

/** The JSON log lines so far (the startup lines for people are not JSON). */
function logLines (output: string): LogLine[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine)
}

/** The lines of the request to `url` (by its request id), once `msg` has been logged for it. */
async function linesOf (served: Served, url: string, msg: string): Promise<LogLine[]> {
  for (let tries = 0; tries < 100; tries++) {
    const lines = logLines(served.output())
    const reqId = lines.find((l) => l.req?.url === url)?.reqId
    const mine = lines.filter((l) => reqId !== undefined && l.reqId === reqId)
    if (mine.some((l) => l.msg === msg)) return mine
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no '${msg}' logged for ${url}:\n${served.output()}`)
}

const port = await freePort()
const served = await serve('--port', String(port), '--host', '127.0.0.1')
const base = `http://127.0.0.1:${port}`

/** The output once it has a line matching `line`: the lines after the startup line may come in later chunks. */
async function outputWith (served: Served, line: RegExp): Promise<string> {
  for (let tries = 0; tries < 100 && !line.test(served.output()); tries++) await new Promise((resolve) => setTimeout(resolve, 20))
  return served.output()
}

test('the startup line names the address and port actually listened on, and the public URL tokens carry when it differs', async () => {
  assert.equal(served.startup, `tablegate is serving ${base} (API ${base}/api/v1, login ${base}/api/auth)`)
  const tokensLine = /^tokens are issued for the public URL http:\/\/localhost:5173 \(publicUrl in the config, or AUTH_URL\)$/m
  assert.match(await outputWith(served, tokensLine), tokensLine)
})

test('the sign-in page opened at the printed address may sign in: that origin is trusted, not only the public URL\'s', async () => {
  const signIn = async (origin: string): Promise<Response> => await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'correct-horse-battery' }),
  })
  assert.equal((await signIn(base)).status, 200)
  assert.equal((await signIn('http://127.0.0.1:1')).status, 403)
})

test('--port 0: the line names the port the system picked, and it answers there', async () => {
  const picked = await serve('--port', '0', '--host', '127.0.0.1')
  const match = /^tablegate is serving http:\/\/127\.0\.0\.1:(\d+) /.exec(picked.startup)
  assert.ok(match !== null, picked.startup)
  assert.notEqual(match[1], '0')
  assert.equal((await fetch(`http://127.0.0.1:${match[1]}/healthz`)).status, 200)
})

test('stdout not a terminal: every line but the two for people is JSON', () => {
  const lines = served.output().split('\n').filter((l) => l !== '')
  assert.deepEqual(lines.filter((l) => !l.startsWith('{')), [served.startup, 'tokens are issued for the public URL http://localhost:5173 (publicUrl in the config, or AUTH_URL)'])
  assert.ok(logLines(served.output()).some((l) => l.msg.startsWith('Server listening at')))
})

/**
 * Requests `path`, expects `status`, and returns the line logged as `msg` for that request,
 * checking that the request's closing line, with the same request id, carries the status.
 */
async function loggedFailure (path: string, status: number, msg: string): Promise<LogLine> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(response.status, status)
  const lines = await linesOf(served, path, 'request completed')
  const completed = lines.find((l) => l.msg === 'request completed') as { res?: { statusCode: number } } | undefined
  assert.equal(completed?.res?.statusCode, status, 'the same request id closes with the status')
  const line = lines.find((l) => l.msg === msg)
  assert.ok(line !== undefined, `no '${msg}' among ${JSON.stringify(lines)}`)
  assert.match(line.reqId!, /^req-/)
  return line
}

test('an unexpected 500 is logged as an error with its request id and the stack of where it was thrown', async () => {
  const error = await loggedFailure('/api/v1/charge', 500, 'unhandled error')
  assert.equal(error.level, 50)
  assert.equal(error.err?.message, 'the card service said no')
  assert.match(error.err!.stack, /^Error: the card service said no\n\s+at chargeTheCard \(.*tablegate\.config\.mjs:\d+:\d+\)/)
})

test('a foreseen 503 is logged as a warning, with its request id, slug and stack', async () => {
  const warning = await loggedFailure('/api/v1/busy', 503, 'answered 503 service-unavailable')
  assert.equal(warning.level, 40)
  assert.equal(warning.problem, 'service-unavailable')
  assert.equal(warning.err?.message, 'The card service is busy.')
  assert.match(warning.err!.stack, /tablegate\.config\.mjs:\d+:\d+/)
})
