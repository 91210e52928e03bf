// The console in a real browser (Debian's chromium through puppeteer-core): an admin and a clerk
// sign in on the same server, each sees only their own menu and columns, pages forward and back by
// the list's tokens, and signs out; the page runs under its CSP without one console error.
// Screenshots go to .out-artifacts/console/ (ignored by git).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'puppeteer-core'
import { runSql } from '../helpers/db.js'
import { createUser, PASSWORD, usersOf } from '../helpers/app.js'
import { METADATA_CONFIG, METADATA_SCHEMA } from '../fixtures/metadata.js'
import { assertFocus, consoleServer, signIn } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

interface Screen {
  readonly menu: string[]
  readonly headers: string[]
  readonly firstCells: string[]
  readonly caption: string
  readonly pageLabel: string
}

// Page functions as text: they run in the browser, where this file's types (no DOM lib) do not reach.
const READ_SCREEN = `({
  menu: [...document.querySelectorAll('nav[aria-label=Main] a')].map((a) => a.textContent),
  headers: [...document.querySelectorAll('main table th')].map((th) => th.textContent),
  firstCells: [...document.querySelectorAll('main table tbody tr')].map((tr) => tr.firstElementChild.textContent),
  caption: document.querySelector('main table caption')?.textContent ?? '',
  pageLabel: document.querySelector('.pager span')?.textContent ?? '',
})`

async function openOrders (page: Page): Promise<Screen> {
  await page.click('nav[aria-label=Main] a[href="#/r/orders"]')
  await page.waitForFunction('document.querySelectorAll("main table tbody tr").length === 20 && document.querySelector("main table caption").textContent.includes("about")')
  return await page.evaluate(READ_SCREEN) as Screen
}

async function turn (page: Page, button: 'Next page' | 'Previous page', to: number): Promise<Screen> {
  const [handle] = await page.$$(`xpath/.//nav[contains(@class, "pager")]/button[text()="${button}"]`)
  assert.ok(handle !== undefined, button)
  await handle.click()
  await page.waitForFunction(`document.querySelector('.pager span').textContent === 'Page ${to}'`)
  await page.waitForNetworkIdle({ idleTime: 100 })
  return await page.evaluate(READ_SCREEN) as Screen
}

test('an admin and a clerk each see their own menu and columns, page by keyset tokens and sign out', async (t) => {
  const server = await consoleServer(t, { ...METADATA_CONFIG, revocationPollMs: 100 }, METADATA_SCHEMA)
  const { app, databaseUrl, errors } = server
  await createUser(app, 'admin@example.com')
  const clerk = await usersOf(app).create({ email: 'clerk@example.com', password: PASSWORD, role: 'clerk' })
  // 30 orders of the clerk's (numbered so their order is plain) and 5 of nobody's.
  await runSql(databaseUrl, `
    INSERT INTO orders (title, status, total, cost, placed_at, owner_id)
    SELECT 'order ' || lpad(n::text, 2, '0'), 'open', n, n * 2, timestamptz '2026-01-01' + n * interval '1 day', '${clerk.id}'
    FROM generate_series(1, 30) AS n;
    INSERT INTO orders (title, cost) SELECT 'other ' || n, 1 FROM generate_series(1, 5) AS n;`)

  const admin = await signIn(server, 'admin@example.com')
  const adminOrders = await openOrders(admin)
  assert.deepEqual(adminOrders.menu, ['Orders', 'Secrets', 'Home', 'Admin tools'])
  assert.deepEqual(adminOrders.headers, ['Id', 'Title', 'Cost', 'Owner id'])
  assert.equal(await admin.$('header .org-picker'), null, 'no organization picker without organizations')
  assert.match(adminOrders.caption, /about 35$/)
  await server.screenshot(admin, 'list-admin')
  const adminNext = await turn(admin, 'Next page', 2)
  assert.equal(adminNext.firstCells.length, 15)

  const page = await signIn(server, 'clerk@example.com')
  const first = await openOrders(page)
  assert.deepEqual(first.menu, ['Orders', 'Home'])
  assert.equal(await page.$eval('nav[aria-label=Main] a[aria-current=page]', (a) => a.textContent), 'Orders')
  assert.deepEqual(first.headers, ['Title', 'Status', 'Total'])
  assert.match(first.caption, /about 30$/)
  assert.equal(first.pageLabel, 'Page 1')
  // The clerk's view sorts by placed_at desc: the newest first, and only the clerk's own.
  assert.equal(first.firstCells[0], 'order 30')
  await server.screenshot(page, 'list')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the list')
  const second = await turn(page, 'Next page', 2)
  assert.deepEqual(second.firstCells, ['order 10', 'order 09', 'order 08', 'order 07', 'order 06', 'order 05', 'order 04', 'order 03', 'order 02', 'order 01'])
  assert.equal(await page.$eval('.pager button:last-of-type', (button) => button.disabled), true, 'no page after the last')
  const back = await turn(page, 'Previous page', 1)
  assert.deepEqual(back.firstCells, first.firstCells)
  // A page of the menu, reached by keyboard, with the clerk's own table of it (cost hidden, so
  // only the title).
  await page.focus('nav[aria-label=Main] a[href="#/p/overview"]')
  await page.keyboard.press('Enter')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Overview" && document.querySelectorAll("main table tbody tr").length === 20')
  assert.deepEqual((await page.evaluate(READ_SCREEN) as Screen).headers, ['Title'])
  // The skip link moves the focus to the screen and leaves the hash, the console's route, as it is.
  await page.focus('header a.skip')
  await page.keyboard.press('Enter')
  await assertFocus(page, 'document.activeElement.id', 'content')
  assert.deepEqual(await page.evaluate('[location.hash, document.querySelector("main h1")?.textContent]'), ['#/p/overview', 'Overview'])

  // The clerk becomes a manager: the next answer's X-Meta-Version differs, the console reads
  // /api/meta again (with a fresh token from the session) and the orders view gains cost.
  assert.deepEqual(errors, [])
  const refused: string[] = []
  page.on('response', (response) => { if (response.status() >= 400) refused.push(`${response.status()} ${new URL(response.url()).pathname}`) })
  const afterRoleChange: string[] = []
  page.on('request', (request) => { afterRoleChange.push(`${request.method()} ${new URL(request.url()).pathname}`) })
  await usersOf(app).setRole({ id: clerk.id }, 'manager')
  await new Promise((resolve) => setTimeout(resolve, 300))
  await page.click('nav[aria-label=Main] a[href="#/r/orders"]')
  await page.waitForFunction('[...document.querySelectorAll("main .list table th")].map((th) => th.textContent).join() === "Title,Status,Total,Cost"')
  assert.deepEqual((await page.evaluate(READ_SCREEN) as Screen).menu, ['Orders', 'Home'])
  // One read of /api/meta for one change: the read's own answer, whose version differs from the
  // refused token's, sets off no second read (whose render once landed on the next click).
  await page.waitForNetworkIdle({ idleTime: 300 })
  assert.deepEqual(afterRoleChange.filter((asked) => asked.includes('/api/meta') || asked.includes('/api/auth/token')), ['GET /api/auth/token', 'GET /api/meta'])
  // The token issued before the change is limited by it (docs/login.md): the one answer it got
  // is what the browser logs, and the console has moved on from it.
  assert.deepEqual(refused, ['404 /api/v1/orders'])
  assert.deepEqual(errors, ['clerk@example.com: Failed to load resource: the server responded with a status of 404 (Not Found)'])
  errors.length = 0

  // A sign-out on its way (held here for 500 ms) takes no token from the session it ends: a
  // screen opened meanwhile finds the session ended, and asks the API for nothing.
  const asked: string[] = []
  let signingOut = false
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    const { pathname } = new URL(request.url())
    if (pathname === '/api/auth/sign-out') {
      setTimeout(() => { void request.continue() }, 500)
      return
    }
    if (signingOut && pathname.startsWith('/api/')) asked.push(`${request.method()} ${pathname}`)
    void request.continue()
  })
  const [signOut] = await page.$$('xpath/.//header/button[text()="Sign out"]')
  signingOut = true
  await signOut!.click()
  await page.click('nav[aria-label=Main] a[href="#/p/overview"]')
  await page.waitForSelector('form input[type=email]')
  await page.waitForNetworkIdle({ idleTime: 100 })
  assert.deepEqual(asked, [])
  assert.deepEqual(refused, ['404 /api/v1/orders'])
  // Signing in again on the same page takes tokens again: the menu comes back, no reload between.
  signingOut = false
  await page.type('#email', 'clerk@example.com')
  await page.type('#password', PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav[aria-label=Main] a')
  const [signOutAgain] = await page.$$('xpath/.//header/button[text()="Sign out"]')
  await signOutAgain!.click()
  await page.waitForSelector('form input[type=email]')
  await page.reload()
  await page.waitForSelector('form input[type=email]')

  assert.deepEqual(errors, [])
})

test('the console renews its 15-minute token from the session cookie a minute before it expires', async (t) => {
  const server = await consoleServer(t, METADATA_CONFIG, METADATA_SCHEMA)
  await createUser(server.app, 'admin@example.com')
  const context = await server.browser.createBrowserContext()
  const page = await context.newPage()
  page.on('console', (message) => { if (message.type() === 'error') server.errors.push(message.text()) })
  // The page's clock runs 14 minutes 50 seconds ahead, so a fresh token seems to have 10 seconds
  // left: inside its last minute, where the console renews after its floor of 5 seconds.
  await page.evaluateOnNewDocument(`{ const ahead = (14 * 60 + 50) * 1000; const now = Date.now; Date.now = () => now() + ahead }`)
  const tokens: string[] = []
  const bearers = new Set<string>()
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/api/auth/token') tokens.push(response.url())
  })
  page.on('request', (request) => {
    const authorization = request.headers().authorization
    if (authorization !== undefined) bearers.add(authorization)
  })
  await page.goto(`${server.origin}/`)
  await page.waitForSelector('form input[type=email]')
  await page.type('#email', 'admin@example.com')
  await page.type('#password', PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav[aria-label=Main] a')
  assert.equal(tokens.length, 1)
  await page.waitForResponse((response) => new URL(response.url()).pathname === '/api/auth/token', { timeout: 15_000 })
  assert.equal(tokens.length, 2, 'a second token, asked for without any request failing first')
  // The next call carries the renewed token.
  await page.click('nav[aria-label=Main] a[href="#/r/orders"]')
  await page.waitForSelector('main table tbody tr')
  assert.equal(bearers.size, 2)
  assert.deepEqual(server.errors, [])
})
