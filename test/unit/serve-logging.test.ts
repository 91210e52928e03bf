// How `tablegate serve` picks its log format and names its address. A terminal cannot be faked for
// a spawned server, so the choice is tested here; JSON lines of a real `serve` are in
// test/http/serve-logs.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import { chooseLogFormat, listeningUrl, serveLogger } from '../../lib/cli/logging.js'

test('a terminal gets pretty logs, anything else JSON; --log-format wins either way', () => {
  assert.equal(chooseLogFormat(true), 'pretty')
  assert.equal(chooseLogFormat(false), 'json')
  assert.equal(chooseLogFormat(true, 'json'), 'json')
  assert.equal(chooseLogFormat(false, 'pretty'), 'pretty')
})

/** What one request-bound info line and one error look like through the logger `serve` builds. */
async function logged (format: 'pretty' | 'json'): Promise<{ options: unknown, text: string }> {
  const sink = new PassThrough()
  let text = ''
  sink.setEncoding('utf8').on('data', (chunk: string) => { text += chunk })
  const options = serveLogger(undefined, format, sink)
  const app = Fastify({ logger: options })
  app.log.child({ reqId: 'req-7' }).error({ err: new Error('it broke') }, 'unhandled error')
  await app.close()
  await new Promise((resolve) => setImmediate(resolve))
  return { options, text }
}

test('pretty: human lines at info, with the request id and the stack; not JSON', async () => {
  const { options, text } = await logged('pretty')
  assert.equal((options as { level: string }).level, 'info')
  assert.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: unhandled error\n/)
  assert.match(text, /reqId: "req-7"/)
  assert.match(text, /Error: it broke\n\s+at /)
  assert.throws(() => JSON.parse(text.split('\n')[0]!))
})

test('json: pino\'s own lines on stdout (no stream of ours), at info', async () => {
  assert.deepEqual(serveLogger(undefined, 'json'), { level: 'info' })
})

test('the config\'s logger: false silences; its options stay, pretty added unless it brings its own stream', () => {
  assert.equal(serveLogger(false, 'pretty'), false)
  assert.deepEqual(serveLogger({ level: 'debug', redact: ['req.headers.authorization'] }, 'json'), { level: 'debug', redact: ['req.headers.authorization'] })
  const pretty = serveLogger({ level: 'warn' }, 'pretty', new PassThrough()) as Record<string, unknown>
  assert.equal(pretty.level, 'warn')
  assert.ok(pretty.stream !== undefined)
  const own = { write: () => {} }
  assert.deepEqual(serveLogger({ stream: own }, 'pretty'), { level: 'info', stream: own })
  assert.deepEqual(serveLogger(true, 'json'), { level: 'info' })
})

test('the startup address is the one bound: the port chosen, a host name kept, IPv6 in brackets', () => {
  assert.equal(listeningUrl('localhost', { address: '::1', family: 'IPv6', port: 8080 }), 'http://localhost:8080')
  assert.equal(listeningUrl('127.0.0.1', { address: '127.0.0.1', family: 'IPv4', port: 40123 }), 'http://127.0.0.1:40123')
  assert.equal(listeningUrl('::', { address: '::', family: 'IPv6', port: 5173 }), 'http://[::]:5173')
})
