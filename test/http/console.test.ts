// The console's files over HTTP: served at console.path without a token, with a strict CSP, the
// right types and caching; off unless configured; never in the way of the API's routes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { resolveConfig } from '../../lib/config/resolve.js'

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

test('the console is served at its path: the page revalidated, hashed assets immutable, all under the CSP', async () => {
  const app = await buildApp({ databaseUrl: await freshDatabase(), console: { path: '/' } })
  const page = await app.inject({ method: 'GET', url: '/' })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  assert.equal(page.headers['cache-control'], 'no-cache')
  assert.equal(page.headers['content-security-policy'], CSP)
  assert.equal(page.headers['x-content-type-options'], 'nosniff')
  assert.match(page.body, /<meta name="tablegate-api-root" content="\/api">/)
  assert.match(page.body, /<meta name="tablegate-base-path" content="\/api\/v1">/)
  // No account flow configured: the sign-in screen offers none; the default password policy.
  assert.match(page.body, /<meta name="tablegate-accounts" content="\{&quot;passwordReset&quot;:false,&quot;emailVerification&quot;:false,&quot;passwordMinLength&quot;:12,&quot;passwordMaxLength&quot;:128\}">/)
  assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<]/, 'no inline script')
  const script = /<script type="module" src="(\/assets\/main-[A-Z0-9]+\.js)"><\/script>/.exec(page.body)?.[1]
  const style = /<link rel="stylesheet" href="(\/assets\/style-[A-Z0-9]+\.css)">/.exec(page.body)?.[1]
  assert.ok(script !== undefined && style !== undefined, page.body)
  const js = await app.inject({ method: 'GET', url: script })
  assert.equal(js.statusCode, 200)
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8')
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable')
  assert.doesNotMatch(js.body, /\beval\(|new Function\(/)
  const css = await app.inject({ method: 'GET', url: style })
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8')
  const missing = await app.inject({ method: 'GET', url: '/assets/main-NOPE.js' })
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().type, 'urn:service:problem:not-found')
  // The API's routes are where they were, and still want a token.
  const meta = await app.inject({ method: 'GET', url: '/api/meta' })
  assert.equal(meta.statusCode, 401)
  assert.equal(meta.json().type, 'urn:service:problem:unauthenticated')
})

test('the console at a path of its own answers with and without the trailing slash, its assets beneath', async () => {
  const app = await buildApp({ databaseUrl: await freshDatabase(), console: { path: '/admin/' } })
  for (const url of ['/admin/', '/admin']) {
    const page = await app.inject({ method: 'GET', url })
    assert.equal(page.statusCode, 200, url)
    assert.match(page.body, /src="\/admin\/assets\/main-/)
  }
  // Elsewhere, what any unknown path gets without a token.
  assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 401)
})

test('without console in the config, or with false, nothing is served', async () => {
  const databaseUrl = await freshDatabase()
  for (const config of [{}, { console: false as const }]) {
    const app = await buildApp({ databaseUrl, ...config })
    const page = await app.inject({ method: 'GET', url: '/' })
    // What any unknown path gets without a token: no page to sign in from.
    assert.equal(page.statusCode, 401)
    assert.equal(page.json().type, 'urn:service:problem:unauthenticated')
  }
})

test('a console path under the API root is refused at start', () => {
  assert.throws(() => resolveConfig({ console: { path: '/api/' } }), /config\.console\.path: '\/api\/' is under the API root '\/api'/)
  assert.throws(() => resolveConfig({ console: { path: '/api/console/' } }), /under the API root/)
  assert.equal(resolveConfig({ console: { path: '/apis/' } }).consolePath, '/apis/')
  assert.equal(resolveConfig({ console: {} }).consolePath, '/')
  assert.equal(resolveConfig({}).consolePath, undefined)
})
