// The console's list screen in a real browser, signed in as a clerk who reads only the north's
// orders and not their margin: search, facet chips with counts (checked against the rows in
// PostgreSQL), paging by tokens with the focus kept, the state in the hash (Back, reload),
// show_deleted with its marks, customers as linked titles, nav.recent, and a CSV export that the
// browser downloads. The margin the admin sees never reaches the clerk's screen or file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { LIST_CONFIG, LIST_ROWS, LIST_SCHEMA } from '../fixtures/console-list.js'
import { consoleServer, signIn, assertFocus } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

interface Row { readonly cells: string[], readonly link: string, readonly href: string, readonly deleted: boolean, readonly customerHref: string | null }
interface Screen {
  readonly hash: string
  readonly headers: string[]
  readonly rows: Row[]
  readonly caption: string
  readonly pageLabel: string
  readonly chips: string[]
  readonly facets: string[]
}

// Page functions as text: they run in the browser, where this file's types (no DOM lib) do not reach.
const READ_SCREEN = `({
  hash: location.hash,
  headers: [...document.querySelectorAll('main table th')].map((th) => th.textContent),
  rows: [...document.querySelectorAll('main table tbody tr')].filter((tr) => tr.children.length > 1).map((tr) => ({
    cells: [...tr.children].map((td) => td.textContent),
    link: tr.querySelector('td a').textContent,
    href: tr.querySelector('td a').getAttribute('href'),
    deleted: tr.classList.contains('deleted'),
    customerHref: tr.children[2].querySelector('a')?.getAttribute('href') ?? null,
  })),
  caption: document.querySelector('main table caption')?.textContent ?? '',
  pageLabel: document.querySelector('.pager span')?.textContent ?? '',
  chips: [...document.querySelectorAll('ul.chips button')].map((b) => b.textContent),
  facets: [...document.querySelectorAll('.facets summary')].map((s) => s.textContent),
})`

const readScreen = async (page: Page): Promise<Screen> => await page.evaluate(READ_SCREEN) as Screen

/** Waits until the list's caption says "about N" and the page holds `rows` rows, then reads it. */
async function settled (page: Page, about: number, rows: number): Promise<Screen> {
  await page.waitForFunction(`document.querySelector('main table caption')?.textContent === 'Orders · about ${about}' && document.querySelectorAll('main table tbody tr').length === ${rows}`)
  await page.waitForNetworkIdle({ idleTime: 100 })
  return await readScreen(page)
}

/** A facet group opened, its values and counts once they came. */
async function openFacet (page: Page, label: string): Promise<Array<[string, number]>> {
  const [summary] = await page.$$(`xpath/.//details[contains(@class, "facet")]/summary[text()="${label}"]`)
  assert.ok(summary !== undefined, label)
  if (await summary.evaluate((s) => !(s.parentElement as unknown as { open: boolean }).open)) await summary.click()
  await page.waitForFunction(`[...document.querySelectorAll('details.facet')].find((d) => d.querySelector('summary').textContent === '${label}')?.querySelector('ul') != null`)
  await page.waitForNetworkIdle({ idleTime: 100 })
  return await facetsOf(page, label)
}

async function facetsOf (page: Page, label: string): Promise<Array<[string, number]>> {
  return await page.evaluate(`[...[...document.querySelectorAll('details.facet')].find((d) => d.querySelector('summary').textContent === '${label}').querySelectorAll('li button')]
    .map((b) => [b.firstChild.textContent.trim(), Number(b.querySelector('.count').textContent)])`) as Array<[string, number]>
}

async function chooseFacet (page: Page, label: string, value: string): Promise<void> {
  const [button] = await page.$$(`xpath/.//details[contains(@class, "facet")][summary[text()="${label}"]]//button[starts-with(normalize-space(.), "${value} ")]`)
  assert.ok(button !== undefined, `${label}: ${value}`)
  await button.click()
}

async function pressButton (page: Page, text: string): Promise<void> {
  const [button] = await page.$$(`xpath/.//main//button[normalize-space(.)="${text}"]`)
  assert.ok(button !== undefined, text)
  await button.click()
}

test('a narrowed clerk searches, filters by facets, pages, shows deleted orders, follows a customer and exports CSV', async (t) => {
  const server = await consoleServer(t, LIST_CONFIG, LIST_SCHEMA)
  const { app, databaseUrl, errors } = server
  await runSql(databaseUrl, LIST_ROWS)
  await createUser(app, 'admin@example.com')
  await createUser(app, 'clerk@example.com', 'clerk')
  const sql = async <T> (text: string): Promise<T[]> => await withClient(databaseUrl, async (c) => (await c.query(text)).rows as T[])
  const CLERK = `region = 'north'`
  const count = async (where: string): Promise<number> => Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM orders WHERE ${CLERK} AND ${where}`))[0]!.n)
  const facetCounts = async (field: string, where: string, label = (v: unknown) => String(v)): Promise<Array<[string, number]>> =>
    (await sql<{ v: unknown, n: string }>(`SELECT ${field} AS v, count(*) AS n FROM orders WHERE ${CLERK} AND ${where} GROUP BY 1 ORDER BY 2 DESC, 1 NULLS LAST`))
      .map(({ v, n }) => [v === null ? '(none)' : label(v), Number(n)])

  // The admin's list has the margin, in the columns and among the filters.
  const admin = await signIn(server, 'admin@example.com')
  await admin.click('nav[aria-label=Main] a[href="#/r/orders"]')
  const adminFirst = await settled(admin, 54, 20)
  assert.deepEqual(adminFirst.headers, ['Title', 'Status', 'Customer', 'Priority', 'Total', 'Margin', 'Placed at'])
  assert.deepEqual(adminFirst.facets, ['Status', 'Priority', 'Rush', 'Margin'])
  // A group shows the 20 most frequent values; More values brings the rest (up to 100) and the
  // focus to the first of them.
  const margins = (await sql<{ v: string, n: string }>('SELECT margin AS v, count(*) AS n FROM orders WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 2 DESC, 1'))
    .map(({ v, n }): [string, number] => [String(v), Number(n)])
  assert.equal(margins.length, 54)
  assert.deepEqual(await openFacet(admin, 'Margin'), margins.slice(0, 20))
  const [more] = await admin.$$('xpath/.//details[contains(@class, "facet")][summary[text()="Margin"]]//button[text()="More values"]')
  assert.ok(more !== undefined, 'a More values button')
  await more.click()
  await admin.waitForFunction(`[...document.querySelectorAll('details.facet')].find((d) => d.querySelector('summary').textContent === 'Margin').querySelectorAll('li button').length === 54`)
  assert.deepEqual(await facetsOf(admin, 'Margin'), margins)
  await assertFocus(admin, 'document.activeElement.firstChild.textContent.trim()', margins[20]![0])
  await server.screenshot(admin, 'list-facet-more')

  const page = await signIn(server, 'clerk@example.com')
  await page.click('nav[aria-label=Main] a[href="#/r/orders"]')
  const live = await count('deleted_at IS NULL')
  assert.equal(live, 39)
  const first = await settled(page, live, 20)
  assert.deepEqual(first.headers, ['Title', 'Status', 'Customer', 'Priority', 'Total', 'Placed at'])
  assert.deepEqual(first.facets, ['Status', 'Priority', 'Rush'])
  // Newest first; each row links to its record, named by the view's title, and its customer is
  // that customer's title linking to it, empty where the clerk may not read the customer (VIP).
  const newest = await sql<{ id: string, title: string, status: string, priority: number, total: string, name: string | null, customer_id: string, placed: string }>(`
    SELECT o.id, o.title, o.status, o.priority, o.total, o.customer_id, CASE WHEN NOT c.vip THEN c.name END AS name,
      to_char(o.placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US" UTC"') AS placed
    FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${CLERK} AND o.deleted_at IS NULL ORDER BY o.placed_at DESC LIMIT 20`)
  assert.deepEqual(first.rows.map((row) => [row.link, row.href]), newest.map((o) => [`${o.title}: ${o.title} (${o.status})`, `#/r/orders/k/${o.id}`]))
  assert.deepEqual(first.rows.map((row) => [row.cells[2], row.customerHref]), newest.map((o) => [o.name ?? '', o.name === null ? null : `#/r/customers/k/${o.customer_id}`]))
  assert.ok(newest.some((o) => o.name === null) && newest.some((o) => o.name !== null))
  assert.deepEqual(first.rows.map((row) => [row.cells[3], row.cells[4]]), newest.map((o) => [String(o.priority), o.total]))
  // Timestamps read as the record screen writes them, in UTC.
  assert.deepEqual(first.rows.map((row) => row.cells[5]), newest.map((o) => o.placed))
  // Numbers are right-aligned, in their headers too.
  assert.deepEqual(await page.evaluate(`[...document.querySelector('main table tbody tr').children].map((td) => getComputedStyle(td).textAlign)`),
    ['left', 'left', 'left', 'right', 'right', 'left'])
  assert.equal(await page.evaluate(`getComputedStyle(document.querySelectorAll('main table th')[4]).textAlign`), 'right')

  // nav.recent: the five latest orders the clerk reads, by their titles.
  const recent = await sql<{ id: string, title: string, status: string }>(`SELECT id, title, status FROM orders WHERE ${CLERK} AND deleted_at IS NULL ORDER BY placed_at DESC LIMIT 5`)
  assert.deepEqual(await page.evaluate(`({ label: document.querySelector('nav.recent h2').textContent, links: [...document.querySelectorAll('nav.recent a')].map((a) => [a.textContent, a.getAttribute('href')]) })`),
    { label: 'Latest orders', links: recent.map((o) => [`${o.title} (${o.status})`, `#/r/orders/k/${o.id}`]) })

  // Search: the hash keeps it; 26 teas, a page of 20 and one of 6.
  await page.type('#list-search', 'tea')
  await page.keyboard.press('Enter')
  const teas = await count(`deleted_at IS NULL AND title LIKE '%tea%'`)
  assert.equal(teas, 26)
  const searched = await settled(page, teas, 20)
  assert.equal(searched.hash, '#/r/orders?q=tea')
  assert.deepEqual(searched.chips, ['Remove Search: tea ×'])
  await pressButton(page, 'Next page')
  await page.waitForFunction(`document.querySelector('.pager span').textContent === 'Page 2'`)
  const second = await settled(page, teas, teas - 20)
  assert.ok(second.rows.every((row) => row.link.startsWith('tea ')))
  // Back by keyboard: "Previous page" turns disabled on page 1 and the focus moves to "Next page".
  await page.focus('.pager button:first-of-type')
  await page.keyboard.press('Enter')
  await page.waitForFunction(`document.querySelector('.pager span').textContent === 'Page 1'`)
  assert.deepEqual((await settled(page, teas, 20)).rows, searched.rows)
  await assertFocus(page, `document.activeElement.textContent`, 'Next page')

  // Facets count under the search; choosing one (here on page 2) is a chip, the list starts again
  // at page 1 (its tokens belong to the list before), and the other facets count under both.
  await page.keyboard.press('Enter')
  await page.waitForFunction(`document.querySelector('.pager span').textContent === 'Page 2'`)
  await settled(page, teas, teas - 20)
  const TEA = `deleted_at IS NULL AND title LIKE '%tea%'`
  assert.deepEqual(await openFacet(page, 'Status'), await facetCounts('status', TEA))
  await chooseFacet(page, 'Status', 'open')
  const TEA_OPEN = `${TEA} AND status = 'open'`
  const open = await settled(page, await count(TEA_OPEN), await count(TEA_OPEN))
  assert.equal(open.pageLabel, 'Page 1')
  assert.equal(open.hash, '#/r/orders?q=tea&f.status=%22open%22')
  assert.deepEqual(open.chips, ['Remove Search: tea ×', 'Remove Status: open ×'])
  assert.ok(open.rows.every((row) => row.cells[1] === 'open'))
  assert.deepEqual(await facetsOf(page, 'Status'), await facetCounts('status', TEA), 'a facet counts without its own chip')
  assert.deepEqual(await openFacet(page, 'Priority'), await facetCounts('priority', TEA_OPEN))
  const rush = await openFacet(page, 'Rush')
  assert.deepEqual(rush, await facetCounts('rush', TEA_OPEN, (v) => v === true ? 'Yes' : 'No'), 'booleans read as the cells read them')
  assert.ok(rush.some(([value]) => value === '(none)'))
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation with the facets open')
  await server.screenshot(page, 'list-filtered')

  // A null facet filters with isNull; Back returns to the list before it.
  await chooseFacet(page, 'Rush', '(none)')
  const TEA_OPEN_NULL = `${TEA_OPEN} AND rush IS NULL`
  const nulls = await settled(page, await count(TEA_OPEN_NULL), await count(TEA_OPEN_NULL))
  assert.deepEqual(nulls.chips, ['Remove Search: tea ×', 'Remove Status: open ×', 'Remove Rush: (none) ×'])
  assert.deepEqual(await facetsOf(page, 'Priority'), await facetCounts('priority', TEA_OPEN_NULL), 'counts follow the filter')
  await page.goBack()
  assert.deepEqual((await settled(page, open.rows.length, open.rows.length)).rows, open.rows)
  // Numbers and booleans are chosen as such.
  await chooseFacet(page, 'Priority', '2')
  const TEA_OPEN_2 = `${TEA_OPEN} AND priority = 2`
  await settled(page, await count(TEA_OPEN_2), await count(TEA_OPEN_2))
  await openFacet(page, 'Rush')
  await chooseFacet(page, 'Rush', 'No')
  const TEA_OPEN_2_SLOW = `${TEA_OPEN_2} AND rush = false`
  const slow = await settled(page, await count(TEA_OPEN_2_SLOW), await count(TEA_OPEN_2_SLOW))
  assert.equal(slow.hash, '#/r/orders?q=tea&f.status=%22open%22&f.priority=2&f.rush=false')
  assert.deepEqual(slow.chips.at(-1), 'Remove Rush: No ×')
  assert.ok(slow.rows.length > 0 && slow.rows.length < open.rows.length)
  await page.goBack()
  await page.goBack()
  assert.deepEqual((await settled(page, open.rows.length, open.rows.length)).rows, open.rows)
  // Reload keeps the state too.
  await page.reload()
  await page.waitForSelector('nav[aria-label=Main] a')
  assert.deepEqual((await settled(page, open.rows.length, open.rows.length)).chips, open.chips)

  // Column headers sort, into the hash too: a relation's column by the related title.
  const ordered = async (by: string): Promise<string[]> => (await sql<{ title: string }>(`
    SELECT o.title FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${CLERK} AND ${TEA_OPEN.replace(/(deleted_at|title|status)/g, 'o.$1')} ORDER BY ${by}, o.id`)).map((o) => o.title)
  const sortedBy = async (hash: string, header: string, sort: string): Promise<string[]> => {
    await page.waitForFunction(`location.hash === '${hash}'`)
    const screen = await settled(page, open.rows.length, open.rows.length)
    assert.equal(await page.evaluate(`[...document.querySelectorAll('main table th[aria-sort]')].map((th) => th.textContent + ' ' + th.getAttribute('aria-sort')).join()`), `${header} ${sort}`)
    return screen.rows.map((row) => row.link.split(':')[0]!)
  }
  await pressButton(page, 'Total')
  assert.deepEqual(await sortedBy('#/r/orders?q=tea&f.status=%22open%22&order_by=total', 'Total', 'ascending'), await ordered('o.total'))
  await pressButton(page, 'Total')
  assert.deepEqual(await sortedBy('#/r/orders?q=tea&f.status=%22open%22&order_by=total+desc', 'Total', 'descending'), await ordered('o.total DESC'))
  await pressButton(page, 'Customer')
  assert.deepEqual(await sortedBy('#/r/orders?q=tea&f.status=%22open%22&order_by=customer.name', 'Customer', 'ascending'), await ordered('c.name'))
  for (let i = 0; i < 3; i++) await page.goBack()
  assert.deepEqual((await settled(page, open.rows.length, open.rows.length)).rows, open.rows)

  // Deleted orders too: the deleted ones marked.
  await page.click('label.toggle input')
  const WITH_DELETED = `title LIKE '%tea%' AND status = 'open'`
  const all = await sql<{ title: string, deleted: boolean }>(`SELECT title, deleted_at IS NOT NULL AS deleted FROM orders WHERE ${CLERK} AND ${WITH_DELETED} ORDER BY placed_at DESC`)
  const shown = await settled(page, all.length, all.length)
  assert.equal(shown.hash, '#/r/orders?q=tea&f.status=%22open%22&show_deleted=true')
  assert.deepEqual(shown.rows.map((row) => [row.link.split(':')[0], row.deleted, row.cells[0]!.endsWith(' (deleted)')]), all.map((o) => [o.title, o.deleted, o.deleted]))
  assert.equal(all.filter((o) => o.deleted).length, 4)

  // CSV of exactly that: the browser downloads it.
  const downloads = mkdtempSync(join(tmpdir(), 'tablegate-downloads-'))
  t.after(() => { rmSync(downloads, { recursive: true, force: true }) })
  const cdp = await page.createCDPSession()
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', browserContextId: page.browserContext().id, downloadPath: downloads })
  await pressButton(page, 'Export CSV')
  const file = join(downloads, 'orders.csv')
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  const csv = readFileSync(file, 'utf8').split('\r\n')
  // The export writes the columns in the resource's field order.
  const expected = await sql<{ line: string }>(`
    SELECT concat_ws(',', title, status, priority, total, customer_id, to_char(placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) AS line
    FROM orders WHERE ${CLERK} AND ${WITH_DELETED} ORDER BY placed_at DESC`)
  assert.deepEqual(csv, ['title,status,priority,total,customer_id,placed_at', ...expected.map((row) => row.line), ''])

  // A customer's title is a link to the customer's record screen.
  const customer = shown.rows.find((row) => row.customerHref !== null)!
  await page.click(`main table tbody a[href="${customer.customerHref}"]`)
  await page.waitForFunction(`location.hash === '${customer.customerHref}'`)
  assert.match(customer.customerHref!, /^#\/r\/customers\/k\/[12]$/)

  // The margin never reached the clerk: not a column, filter, chip or cell.
  assert.equal(csv[0]!.includes('margin'), false)
  await page.goBack()
  await settled(page, all.length, all.length)
  assert.equal(await page.evaluate(`/margin/i.test(document.body.innerText)`), false)

  // 390 px wide: usable, the table scrolls in its own box.
  // There, too, a link from the admin with a chip on the margin: that chip is not the clerk's.
  const narrow = await signIn(server, 'clerk@example.com', { width: 390, height: 844 })
  await narrow.evaluate(`location.hash = '#/r/orders?q=tea&f.status=%22open%22&f.margin=%2211.75%22'`)
  assert.deepEqual((await settled(narrow, open.rows.length, open.rows.length)).chips, open.chips)
  await openFacet(narrow, 'Status')
  // A search is one quoted string: quotes and stars in it are text, not syntax.
  await narrow.type('#list-search', ' "0*')
  await narrow.keyboard.press('Enter')
  await narrow.waitForFunction(`document.querySelector('main table tbody td')?.textContent === 'No records.'`)
  assert.equal(await narrow.evaluate(`[...document.querySelectorAll('main [role=alert]')].map((alert) => alert.textContent).join('')`), '', 'no error said')
  await narrow.goBack()
  await settled(narrow, open.rows.length, open.rows.length)
  assert.equal(await narrow.evaluate('document.documentElement.scrollWidth <= 390'), true, 'no horizontal page overflow at 390 px')
  assert.deepEqual(await narrow.evaluate(`[...document.querySelectorAll('main, .list-tools, .facets')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.className || e.tagName)`), [], 'only the table scrolls sideways')
  assert.deepEqual(await axeViolations(narrow), [])
  await server.screenshot(narrow, 'list-390')

  assert.deepEqual(errors, [])
})

test('/api/meta names the soft-delete field to those who read it, and to no one else', async () => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, LIST_SCHEMA)
  const orders = LIST_CONFIG.resources.orders
  const app = await buildApp({ databaseUrl, ...LIST_CONFIG, resources: { ...LIST_CONFIG.resources, orders: { ...orders, access: { ...orders.access, fields: { ...orders.access.fields, deleted_at: { read: ['admin'] } } } } } })
  await createUser(app, 'admin@example.com')
  await createUser(app, 'clerk@example.com', 'clerk')
  const meta = async (email: string) => (await caller(app, await bearer(app, email))('GET', '/api/meta')).body.resources
  const [admin, clerk] = [await meta('admin@example.com'), await meta('clerk@example.com')]
  assert.equal(admin.orders.softDeleteField, 'deleted_at')
  assert.equal(clerk.orders.softDelete, true)
  assert.equal('deleted_at' in clerk.orders.fields, false)
  assert.equal('softDeleteField' in clerk.orders, false)
  assert.equal('softDeleteField' in admin.customers, false)
})
