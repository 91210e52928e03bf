// The console's pages, charts and reorder board in chromium: the dashboard draws each view's chart
// from :facets, :series or :histogram with exactly the numbers the route gives that caller (an
// admin and a member see different ones), its buttons are the caller's, and a member reorders its
// tasks by dragging a card and by the Move buttons, each move one :batchWrite of ETag-guarded
// updates, a stale ETag reloading the board. Screenshots go to .out-artifacts/console/.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'puppeteer-core'
import type { FastifyInstance } from 'fastify'
import { runSql, withClient } from '../helpers/db.js'
import { bearer, caller, createUser, PASSWORD, usersOf } from '../helpers/app.js'
import { PAGES_CONFIG, PAGES_SCHEMA } from '../fixtures/console-pages.js'
import { consoleServer, signIn, assertFocus } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

const ZONE = 'Europe/Berlin'

interface Mark { readonly label: string, readonly count: number, readonly height: number }
interface DrawnChart {
  readonly resource: string
  readonly source: string
  readonly title: string
  readonly marks: Mark[]
  readonly table: Array<[string, string]>
  readonly svgLabel: string
}

// Page functions as text: they run in the browser, where this file's types (no DOM lib) do not reach.
// A mark's height is measured from the zero line, for bars and for a line's points alike.
const READ_CHARTS = `[...document.querySelectorAll('main figure.chart')].map((figure) => {
  const zero = Number(figure.querySelector('.tick line')?.getAttribute('y1'))
  return {
    resource: figure.dataset.resource,
    source: figure.dataset.source,
    title: figure.querySelector('figcaption').textContent,
    marks: [...figure.querySelectorAll('.mark')].map((mark) => ({
      label: mark.dataset.label,
      count: Number(mark.dataset.count),
      height: mark.tagName === 'rect' ? Number(mark.getAttribute('height')) : zero - Number(mark.getAttribute('cy')),
    })),
    table: [...figure.querySelectorAll('table tbody tr')].map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]),
    svgLabel: figure.querySelector('svg')?.getAttribute('aria-label') ?? '',
  }
})`
const CHARTS_DRAWN = `document.querySelectorAll('main figure.chart').length === 3 && [...document.querySelectorAll('main figure.chart')].every((f) => f.querySelector('.mark') !== null)`
const CARD_TITLES = `[...document.querySelectorAll('main .cards .card-title')].map((title) => title.textContent)`
const FITS = 'document.documentElement.scrollWidth'

async function answerOf (app: FastifyInstance, email: string, url: string): Promise<any> {
  const answer = await caller(app, await bearer(app, email))('GET', url)
  assert.equal(answer.status, 200, url)
  return answer.body
}

/** Every mark's height over its count is one scale: the picture says what the numbers say. */
function assertProportional (chart: DrawnChart): void {
  const scales = chart.marks.filter((mark) => mark.count > 0).map((mark) => mark.height / mark.count)
  for (const scale of scales) assert.ok(Math.abs(scale - scales[0]!) < 1e-6, `${chart.resource}: ${scales.join(', ')}`)
  for (const mark of chart.marks.filter((m) => m.count === 0)) assert.ok(Math.abs(mark.height) < 1e-6)
}

/** The drawn charts against the routes' answers for `email`, which the test also states outright. */
async function checkCharts (app: FastifyInstance, page: Page, email: string, expected: { facets: Array<[string, number]>, series: Array<[string, number]>, histogram: number[] }): Promise<void> {
  const charts = await page.evaluate(READ_CHARTS) as DrawnChart[]
  assert.deepEqual(charts.map((c) => [c.resource, c.source, c.title]), [
    ['tasks', 'facets', 'Tasks by status'],
    ['visits', 'series', 'Visits over time (visited at)'],
    ['efforts', 'histogram', 'Efforts by hours'],
  ])
  const [tasks, visits, efforts] = charts as [DrawnChart, DrawnChart, DrawnChart]

  const facets = await answerOf(app, email, '/api/v1/tasks:facets?field=status')
  assert.deepEqual(facets.facets.map((f: { value: string, count: number }) => [f.value, f.count]), expected.facets)
  assert.deepEqual(tasks.marks.map((m) => [m.label, m.count]), expected.facets)
  assert.deepEqual(tasks.table, expected.facets.map(([value, count]) => [value, String(count)]))
  assert.equal(tasks.svgLabel, 'Bar chart: Tasks by status, counting records. The numbers follow as a table.')

  const series = await answerOf(app, email, `/api/v1/visits:series?field=visited_at&range=all&time_zone=${encodeURIComponent(ZONE)}`)
  assert.equal(series.granularity, 'day')
  assert.deepEqual(series.buckets.map((b: { count: number }) => b.count), expected.series.map(([, count]) => count))
  assert.deepEqual(visits.marks.map((m) => [m.label, m.count]), expected.series)
  assert.equal(visits.table.length, expected.series.length)

  const histogram = await answerOf(app, email, '/api/v1/efforts:histogram?field=hours')
  assert.deepEqual(histogram.buckets.map((b: { count: number }) => b.count), expected.histogram)
  assert.deepEqual(efforts.marks.map((m) => m.count), expected.histogram)
  assert.equal(efforts.marks[0]!.label, `${histogram.buckets[0].start}–${Math.round(histogram.buckets[0].end * 100) / 100}`)

  for (const chart of charts) assertProportional(chart)
}

async function buttonsOf (page: Page): Promise<Array<[string, string]>> {
  return await page.$$eval('main .page-actions a', (links) => links.map((a): [string, string] => [a.textContent ?? '', a.getAttribute('href') ?? '']))
}

async function positions (databaseUrl: string): Promise<Array<[string, number, number]>> {
  return await withClient(databaseUrl, async (client) => (await client.query<{ title: string, position: number, version: number }>(
    'SELECT title, position, version FROM tasks ORDER BY position, id')).rows.map((row) => [row.title, row.position, row.version]))
}

async function centre (page: Page, selector: string): Promise<{ x: number, y: number }> {
  const box = await (await page.$(selector))?.boundingBox()
  assert.ok(box !== null && box !== undefined, selector)
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 }
}

test('the dashboard charts each caller\'s own numbers; a member reorders its tasks by dragging and by keyboard', async (t) => {
  const server = await consoleServer(t, PAGES_CONFIG, PAGES_SCHEMA)
  const { app, databaseUrl, errors } = server
  await createUser(app, 'admin@example.com')
  const member = await usersOf(app).create({ email: 'member@example.com', password: PASSWORD, role: 'member' })
  await runSql(databaseUrl, `
    INSERT INTO tasks (title, status, estimate, position, owner_id) VALUES
      ('Write the brief', 'todo', 2, 10, '${member.id}'), ('Draw the charts', 'todo', 5, 20, '${member.id}'),
      ('Build the board', 'doing', 8, 30, '${member.id}'), ('Test it', 'done', 3, 40, '${member.id}'),
      ('Ship it', 'todo', 1, 50, '${member.id}'),
      ('Other A', 'doing', 1, 5, NULL), ('Other B', 'done', 1, 15, NULL), ('Other C', 'done', 1, 25, NULL);
    INSERT INTO visits (page, visited_at, owner_id) VALUES
      ('/', '2026-03-01T12:00:00Z', '${member.id}'), ('/a', '2026-03-01T15:00:00Z', '${member.id}'), ('/b', '2026-03-03T09:00:00Z', '${member.id}'), ('/b', '2026-03-05T09:00:00Z', '${member.id}'),
      ('/', '2026-02-20T10:00:00Z', NULL), ('/', '2026-02-20T11:00:00Z', NULL), ('/', '2026-02-20T12:00:00Z', NULL), ('/', '2026-02-20T13:00:00Z', NULL),
      ('/c', '2026-03-02T12:00:00Z', NULL);
    INSERT INTO efforts (hours, owner_id) VALUES (1, '${member.id}'), (2, '${member.id}'), (8, '${member.id}'), (20, NULL), (40, NULL);`)

  // The admin's dashboard: every row counted, every button.
  const admin = await signIn(server, 'admin@example.com')
  await admin.emulateTimezone(ZONE)
  await admin.click('nav[aria-label=Main] a[href="#/p/dashboard"]')
  await admin.waitForFunction(CHARTS_DRAWN)
  await admin.waitForFunction('document.querySelectorAll("main .list table tbody tr").length === 8')
  assert.equal(await admin.$eval('main h1', (h1) => h1.textContent), 'Dashboard')
  assert.equal(await admin.$eval('main .page-text', (p) => p.textContent), 'How the work stands.')
  const days = (from: number, to: number, month: string): string[] => Array.from({ length: to - from + 1 }, (_, i) => `2026-${month}-${String(from + i).padStart(2, '0')}`)
  await checkCharts(app, admin, 'admin@example.com', {
    facets: [['done', 3], ['todo', 3], ['doing', 2]],
    series: [...days(20, 28, '02'), ...days(1, 5, '03')].map((day): [string, number] => [day, ({ '2026-02-20': 4, '2026-03-01': 2, '2026-03-02': 1, '2026-03-03': 1, '2026-03-05': 1 } as Record<string, number>)[day] ?? 0]),
    histogram: [2, 1, 0, 0, 1, 0, 0, 0, 0, 1],
  })
  assert.deepEqual(await buttonsOf(admin), [['New task', '#/r/tasks/new'], ['All tasks', '#/r/tasks'], ['Edit tasks', '#/r/tasks'], ['Delete tasks', '#/r/tasks']])
  assert.deepEqual(await axeViolations(admin), [], 'no WCAG A/AA violation on the dashboard')
  await server.screenshot(admin, 'dashboard')
  // The page's table is a list like the list screen's: in the view's order, each first cell a
  // link to its record, which the link opens.
  const ordered = await withClient(databaseUrl, async (client) => (await client.query<{ id: number, title: string }>('SELECT id, title FROM tasks ORDER BY position')).rows)
  assert.deepEqual(await admin.$$eval('main .list table tbody tr td:first-child a', (links) => links.map((a) => [a.textContent, a.getAttribute('href')])),
    ordered.map((task) => [task.title, `#/r/tasks/k/${task.id}`]))
  await admin.click('main .list table tbody tr td:first-child a')
  await admin.waitForFunction(`document.querySelector('main h1')?.textContent === ${JSON.stringify(ordered[0]!.title)}`)

  // The member's: only its own rows, and no create or delete button (it may do neither).
  const page = await signIn(server, 'member@example.com')
  await page.emulateTimezone(ZONE)
  await page.click('nav[aria-label=Main] a[href="#/p/dashboard"]')
  await page.waitForFunction(CHARTS_DRAWN)
  await checkCharts(app, page, 'member@example.com', {
    facets: [['todo', 3], ['doing', 1], ['done', 1]],
    series: [['2026-03-01', 2], ['2026-03-02', 0], ['2026-03-03', 1], ['2026-03-04', 0], ['2026-03-05', 1]],
    histogram: [1, 1, 0, 0, 0, 0, 0, 0, 0, 1],
  })
  assert.deepEqual(await buttonsOf(page), [['All tasks', '#/r/tasks'], ['Edit tasks', '#/r/tasks']])

  // Its tasks as a board, in position order, under the view's chart.
  const batches: unknown[] = []
  page.on('request', (request) => { if (request.url().endsWith(':batchWrite')) batches.push(JSON.parse(request.postData() ?? 'null')) })
  await page.click('nav[aria-label=Main] a[href="#/r/tasks"]')
  await page.waitForFunction('document.querySelectorAll("main .cards .card").length === 5 && document.querySelector("main figure.chart .mark") !== null')
  assert.deepEqual(await page.evaluate(CARD_TITLES), ['Write the brief', 'Draw the charts', 'Build the board', 'Test it', 'Ship it'])
  assert.deepEqual(await page.$$eval('main figure.chart .mark', (marks) => marks.map((m) => m.getAttribute('data-count'))), ['3', '1', '1'])
  const etags = await withClient(databaseUrl, async (client) => (await client.query<{ id: number, title: string }>('SELECT id, title FROM tasks WHERE owner_id IS NOT NULL ORDER BY position')).rows)
  const id = (title: string): number => etags.find((row) => row.title === title)!.id

  // Drag "Test it" (4th) onto "Write the brief" (1st): it takes position 10, the three it passed
  // move down a place each, "Ship it" and the others' tasks stay as they were.
  const from = await centre(page, 'main .cards li:nth-child(4) .card-body')
  const to = await centre(page, 'main .cards li:nth-child(1) .card-body')
  await page.mouse.move(from.x, from.y)
  await page.mouse.down()
  await page.mouse.move(to.x, to.y, { steps: 8 })
  await page.waitForFunction('document.querySelector("main .cards li:nth-child(1)").className === "card drop-target" && document.querySelector("main .cards li:nth-child(4)").className === "card dragging"')
  await page.mouse.up()
  await page.waitForFunction('document.querySelector("main [role=status]")?.textContent === "Moved Test it to position 1 of 5."')
  assert.deepEqual(await page.evaluate(CARD_TITLES), ['Test it', 'Write the brief', 'Draw the charts', 'Build the board', 'Ship it'])
  assert.deepEqual(await positions(databaseUrl), [
    ['Other A', 5, 1], ['Test it', 10, 2], ['Other B', 15, 1], ['Write the brief', 20, 2], ['Other C', 25, 1],
    ['Draw the charts', 30, 2], ['Build the board', 40, 2], ['Ship it', 50, 1],
  ])
  assert.equal(batches.length, 1, 'one :batchWrite for the drag')
  const ops = (batches[0] as { ops: Array<Record<string, unknown>> }).ops
  assert.deepEqual(ops.map(({ etag, ...op }) => op), [
    { op: 'update', resource: 'tasks', key: id('Test it'), data: { position: 10 } },
    { op: 'update', resource: 'tasks', key: id('Write the brief'), data: { position: 20 } },
    { op: 'update', resource: 'tasks', key: id('Draw the charts'), data: { position: 30 } },
    { op: 'update', resource: 'tasks', key: id('Build the board'), data: { position: 40 } },
  ])
  for (const op of ops) assert.match(String(op.etag), /^"1\./, 'each update carries the ETag it was read with')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the board')
  await server.screenshot(page, 'board')

  // The keyboard: "Ship it" up one place with its Move up button; the focus stays on it.
  await page.focus('main button[aria-label="Move Ship it up"]')
  await page.keyboard.press('Enter')
  await page.waitForFunction('document.querySelector("main [role=status]")?.textContent === "Moved Ship it to position 4 of 5."')
  await assertFocus(page, 'document.activeElement?.getAttribute("aria-label")', 'Move Ship it up')
  assert.deepEqual(await page.evaluate(CARD_TITLES), ['Test it', 'Write the brief', 'Draw the charts', 'Ship it', 'Build the board'])
  assert.equal(batches.length, 2)
  assert.deepEqual((await positions(databaseUrl)).filter(([title]) => !title.startsWith('Other')), [
    ['Test it', 10, 2], ['Write the brief', 20, 2], ['Draw the charts', 30, 2], ['Ship it', 40, 2], ['Build the board', 50, 3],
  ])

  // Someone else renames "Draw the charts" meanwhile: the next move's ETag is stale, so nothing is
  // written, the board says so and reloads with the new title.
  await runSql(databaseUrl, `UPDATE tasks SET title = 'Draw the charts again', version = version + 1 WHERE id = ${id('Draw the charts')}`)
  await page.keyboard.press('Enter')
  await page.waitForFunction('document.querySelector("main [role=alert]")?.textContent.startsWith("Someone changed these cards")')
  await page.waitForFunction(`${CARD_TITLES}.includes('Draw the charts again')`)
  assert.equal(await page.$eval('main [role=alert]', (p) => p.textContent), 'Someone changed these cards since they were loaded, so the move was not saved. The board has been reloaded; try again.')
  assert.deepEqual(await page.evaluate(CARD_TITLES), ['Test it', 'Write the brief', 'Draw the charts again', 'Ship it', 'Build the board'])
  await assertFocus(page, 'document.activeElement?.getAttribute("aria-label")', 'Move Ship it up')
  assert.deepEqual((await positions(databaseUrl)).filter(([title]) => !title.startsWith('Other')), [
    ['Test it', 10, 2], ['Write the brief', 20, 2], ['Draw the charts again', 30, 3], ['Ship it', 40, 2], ['Build the board', 50, 3],
  ])
  assert.deepEqual(errors, ['member@example.com: Failed to load resource: the server responded with a status of 412 (Precondition Failed)'])
  errors.length = 0

  // Positions that say no order (all equal): the admin's move numbers the whole board 1, 2, 3, ...
  // in its new order (equal positions list by key), in one batch of an update per card.
  await runSql(databaseUrl, 'UPDATE tasks SET position = 0')
  const adminBatches: Array<{ ops: unknown[] }> = []
  admin.on('request', (request) => { if (request.url().endsWith(':batchWrite')) adminBatches.push(JSON.parse(request.postData() ?? 'null')) })
  await admin.click('nav[aria-label=Main] a[href="#/r/tasks"]')
  await admin.waitForFunction('document.querySelectorAll("main .cards .card").length === 8')
  await admin.focus('main button[aria-label="Move Other C up"]')
  await admin.keyboard.press('Enter')
  await admin.waitForFunction('document.querySelector("main [role=status]")?.textContent === "Moved Other C to position 7 of 8."')
  assert.equal(adminBatches.length, 1)
  assert.equal(adminBatches[0]!.ops.length, 8)
  assert.deepEqual((await positions(databaseUrl)).map(([title, position]) => [title, position]), [
    ['Write the brief', 1], ['Draw the charts again', 2], ['Build the board', 3], ['Test it', 4], ['Ship it', 5], ['Other A', 6], ['Other C', 7], ['Other B', 8],
  ])

  // A phone: the dashboard and the board fit 390 px without the page scrolling sideways.
  const phone = await signIn(server, 'member@example.com', { width: 390, height: 844 })
  await phone.click('nav[aria-label=Main] a[href="#/p/dashboard"]')
  await phone.waitForFunction(CHARTS_DRAWN)
  assert.ok(await phone.evaluate(FITS) as number <= 390, 'the dashboard fits 390 px')
  await server.screenshot(phone, 'dashboard-390')
  await phone.click('nav[aria-label=Main] a[href="#/r/tasks"]')
  await phone.waitForFunction('document.querySelectorAll("main .cards .card").length === 5')
  assert.ok(await phone.evaluate(FITS) as number <= 390, 'the board fits 390 px')
  await server.screenshot(phone, 'board-390')

  assert.deepEqual(errors, [])
})
