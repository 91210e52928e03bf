// docs/login.md's cross-origin flow in a real browser: a page on a trusted origin signs in with
// `credentials: 'include'`, takes a token and creates a record, reading its ETag; a page on an
// origin that is not trusted is stopped by the browser at the first request.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { freePort } from '../../lib/db/embedded.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, PASSWORD } from '../helpers/app.js'
import { launchBrowser } from '../helpers/browser.js'

/** A server of one blank page: the origin a page's scripts run in. */
async function pageServer (port: number): Promise<Server> {
  const server = createServer((_request, response) => { response.setHeader('content-type', 'text/html').end('<!doctype html><title>app</title>') })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return server
}

// Runs in the page: sign in, take a token, create a record; or the browser's refusal.
const APP_SCRIPT = (api: string, email: string): string => `(async () => {
  try {
    const signIn = await fetch('${api}/api/auth/sign-in/email', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: '${email}', password: '${PASSWORD}' }) })
    const { token } = await (await fetch('${api}/api/auth/token', { credentials: 'include' })).json()
    const created = await fetch('${api}/api/v1/notes', { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'from another origin' }) })
    const record = await created.json()
    return { signIn: signIn.status, created: created.status, etag: created.headers.get('etag') === record.etag, title: record.title }
  } catch (err) {
    return { refused: String(err) }
  }
})()`

test('a page on a trusted origin signs in, takes a token and writes; an untrusted origin is refused by the browser', async (t) => {
  // Launched first, so that it closes first: the app's close waits for the browser's connections.
  const browser = await launchBrowser(t)
  const [apiPort, trustedPort, foreignPort] = [await freePort(), await freePort(), await freePort()]
  const api = `http://127.0.0.1:${apiPort}`
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, 'CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL)')
  const app = await buildApp({
    databaseUrl,
    publicUrl: api,
    trustedOrigins: [`http://127.0.0.1:${trustedPort}`],
    resources: { notes: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } } },
  })
  await createUser(app, 'admin@example.com')
  await app.listen({ port: apiPort, host: '127.0.0.1' })
  const pages = [await pageServer(trustedPort), await pageServer(foreignPort)]
  t.after(() => { for (const server of pages) server.close() })

  const page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${trustedPort}/`)
  assert.deepEqual(await page.evaluate(APP_SCRIPT(api, 'admin@example.com')), { signIn: 200, created: 201, etag: true, title: 'from another origin' })

  await page.goto(`http://127.0.0.1:${foreignPort}/`)
  const foreign = await page.evaluate(APP_SCRIPT(api, 'admin@example.com')) as { refused?: string }
  assert.match(String(foreign.refused), /TypeError: Failed to fetch/)
})
