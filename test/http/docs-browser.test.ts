// /api/docs in a real browser (Debian's chromium through puppeteer-core): a person signs in on
// /api/auth/sign-in and lands on the rendered reference of their own document. The screenshot is
// kept in .out-artifacts/ (ignored by git) to look at.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../../lib/db/embedded.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, PASSWORD } from '../helpers/app.js'
import { METADATA_CONFIG, METADATA_SCHEMA } from '../fixtures/metadata.js'
import { launchBrowser } from '../helpers/browser.js'

const artifacts = fileURLToPath(new URL('../../../.out-artifacts/', import.meta.url))

test('signing in through /api/auth/sign-in leads to a rendered reference of the caller\'s own resources', async (t) => {
  // Launched first, so that it closes first: the app's close waits for the browser's connections.
  const browser = await launchBrowser(t)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, METADATA_SCHEMA)
  const app = await buildApp({ databaseUrl, publicUrl: origin, ...METADATA_CONFIG })
  await createUser(app, 'admin@example.com')
  await createUser(app, 'clerk@example.com', 'clerk')
  await app.listen({ port, host: '127.0.0.1' })

  const page = await browser.newPage()
  await page.setViewport({ width: 1280, height: 900 })
  // Scalar asks outside hosts for fonts and the like; with no network (CI) each waited about a
  // minute before the page rendered. Refused at once, the page renders from its own bundle.
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    const url = request.url()
    void (/^https?:/.test(url) && !url.startsWith(origin) ? request.abort() : request.continue())
  })
  for (const path of ['/api/docs', '/api/docs/']) {
    const denied = await page.goto(`${origin}${path}`)
    assert.equal(denied?.status(), 401, path)
  }

  await page.goto(`${origin}/api/auth/sign-in`)
  await page.type('input[name=email]', 'clerk@example.com')
  await page.type('input[name=password]', PASSWORD)
  // The docs page's load event would wait on Scalar's optional outside requests: the DOM suffices.
  const [landed] = await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type=submit]')])
  // Straight to the page, no redirect; its bundle and document then load with the cookie alone.
  assert.equal(new URL(page.url()).pathname, '/api/docs')
  assert.equal(landed?.status(), 200)
  assert.equal(landed.request().redirectChain().length, 0)
  // Page functions as text: they run in the browser, where this file's types (no DOM lib) do not reach.
  await page.waitForFunction('document.body.innerText.includes("List orders")', { timeout: 60_000 })
  const text = await page.evaluate('document.body.innerText') as string
  mkdirSync(artifacts, { recursive: true })
  await page.screenshot({ path: join(artifacts, 'docs.png') })
  for (const shown of ['List orders', 'Create one of orders', 'Update one of orders', 'tags']) assert.ok(text.includes(shown), shown)
  for (const hidden of ['secrets', 'Delete one of orders', 'Create one of tags']) assert.equal(text.includes(hidden), false, hidden)
})
