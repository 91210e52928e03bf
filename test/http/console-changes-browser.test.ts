// The console follows changes live (docs/console.md, "Live updates"), in a real browser, as a
// member who reads only the red team's tasks while an admin writes through the API: an open list
// counts the records new to it and shows them when asked, refreshes a changed row in place and
// drops rows that left it or were deleted, and loses nothing when its stream breaks; a record
// being edited warns that someone else saved it and loads their version, the user's own save
// raises nothing, and a record deleted or moved out of reach says so. Each stream closes with its
// screen or its question. Then as the admin, who sees deleted tasks: a row deleted from a list
// that shows them stays, marked, and a record deleted and restored elsewhere follows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { HTTPRequest, Page } from 'puppeteer-core'
import { bearer, caller, createUser } from '../helpers/app.js'
import { CHANGES_CONFIG, CHANGES_SCHEMA } from '../fixtures/console-changes.js'
import { assertFocus, consoleServer, signIn } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

/** The `:changes` streams a page opened: each one's filter, resume id, and whether it has ended. */
interface Stream { readonly filter: string | null, readonly lastEventId: string | undefined, ended: boolean }

function streamsOf (page: Page): Stream[] {
  const streams: Stream[] = []
  const byRequest = new Map<HTTPRequest, Stream>()
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (!url.pathname.endsWith(':changes')) return
    const stream = { filter: url.searchParams.get('filter'), lastEventId: request.headers()['last-event-id'], ended: false }
    streams.push(stream)
    byRequest.set(request, stream)
  })
  const end = (request: HTTPRequest): void => { const stream = byRequest.get(request); if (stream !== undefined) stream.ended = true }
  page.on('requestfinished', end)
  page.on('requestfailed', end)
  return streams
}

const TITLES = `[...document.querySelectorAll('main table tbody tr')].filter((tr) => tr.children.length > 1).map((tr) => tr.children[0].firstChild.textContent)`

/** Waits until the list's rows are `titles`, in order (the first column, the link's visible text). */
async function rowsAre (page: Page, titles: readonly string[]): Promise<void> {
  await page.waitForFunction(`JSON.stringify(${TITLES}) === ${JSON.stringify(JSON.stringify(titles))}`, { timeout: 5_000 }).catch(() => {})
  assert.deepEqual(await page.evaluate(TITLES), titles)
}

const NOTICE = `document.querySelector('main .live-notice')?.textContent ?? null`

async function noticeIs (page: Page, text: string): Promise<void> {
  await page.waitForFunction(`(${NOTICE}) === ${JSON.stringify(text)}`, { timeout: 5_000 }).catch(() => {})
  assert.equal(await page.evaluate(NOTICE), text)
}

async function textIs (page: Page, selector: string, text: string): Promise<void> {
  const read = `document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`
  await page.waitForFunction(`(${read}) === ${JSON.stringify(text)}`, { timeout: 5_000 }).catch(() => {})
  assert.equal(await page.evaluate(read), text, selector)
}

async function press (page: Page, label: string): Promise<void> {
  const [button] = await page.$$(`xpath/.//main//button[normalize-space(.)=${JSON.stringify(label)}]`)
  assert.ok(button !== undefined, `a ${label} button`)
  await button.click()
}

test('a member\'s open list and record follow what an admin writes', async (t) => {
  const server = await consoleServer(t, CHANGES_CONFIG, CHANGES_SCHEMA)
  const { app, errors } = server
  await createUser(app, 'admin@example.com', 'admin')
  await createUser(app, 'member@example.com', 'member')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const write = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: Record<string, unknown>): Promise<string> => {
    const answer = await admin(method, `/api/v1/tasks${path}`, { headers: method === 'POST' ? {} : { 'if-match': '*' }, ...payload === undefined ? {} : { payload } })
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
    return String(answer.body?.id ?? '')
  }

  const page = await signIn(server, 'member@example.com')
  const streams = streamsOf(page)
  await page.evaluate(`location.hash = '#/r/tasks?f.status=%22open%22'`)
  await rowsAre(page, ['Write docs', 'Fix bug', 'Plan', 'Triage'])
  assert.deepEqual(streams.map((stream) => stream.filter), ['status = "open"'])

  // New records are counted, not slipped into the page; the admin's blue task and a done one are
  // not the member's list's (they come between the two red ones, so a count of 2 proves it).
  await write('POST', '', { title: 'New red A' })
  await noticeIs(page, '1 new record — Show new records')
  await write('POST', '', { title: 'Blue one', team: 'blue' })
  await write('POST', '', { title: 'Done red', status: 'done' })
  await write('POST', '', { title: 'New red B' })
  await noticeIs(page, '2 new records — Show new records')
  await rowsAre(page, ['Write docs', 'Fix bug', 'Plan', 'Triage'])

  // A change in place, a row moved out of the filter, a row deleted, a blue row that became red.
  await write('PATCH', '/2', { title: 'Fix bug now' })
  await rowsAre(page, ['Write docs', 'Fix bug now', 'Plan', 'Triage'])
  await write('PATCH', '/5', { status: 'done' })
  await rowsAre(page, ['Write docs', 'Fix bug now', 'Triage'])
  await write('DELETE', '/7')
  await rowsAre(page, ['Write docs', 'Fix bug now'])
  await write('PATCH', '/4', { team: 'red' })
  await noticeIs(page, '3 new records — Show new records')

  // The stream breaks (every connection of the server dropped): a change made meanwhile comes
  // after the reconnect, which resumes from the last id.
  app.server.closeAllConnections()
  await write('PATCH', '/1', { title: 'Write docs again' })
  await rowsAre(page, ['Write docs again', 'Fix bug now'])
  assert.equal(streams.length, 2)
  assert.ok(streams[1]!.lastEventId !== undefined && streams[1]!.lastEventId !== '', 'the second stream resumes from an id')
  assert.deepEqual(errors.splice(0), ['member@example.com: Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING'])
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation with the notice')
  await server.screenshot(page, 'changes-list')

  // Show reads the list again from its first page, and the focus goes to the records.
  await press(page, 'Show new records')
  await rowsAre(page, ['Write docs again', 'Fix bug now', 'Deploy', 'New red A', 'New red B'])
  await noticeIs(page, '')
  await assertFocus(page, `document.activeElement.getAttribute('aria-label')`, 'Tasks table')

  // Another filter is another stream: the old one closes.
  await press(page, 'Remove Status: open ×')
  await rowsAre(page, ['Write docs again', 'Fix bug now', 'Review', 'Deploy', 'Plan', 'Test', 'New red A', 'Done red', 'New red B'])
  assert.deepEqual(streams.map((stream) => [stream.filter, stream.ended]), [['status = "open"', true], ['status = "open"', true], [null, false]])

  // A record being edited: someone else's save is a warning, and the form keeps what was typed.
  const reads: string[] = []
  page.on('request', (request) => { if (request.method() === 'GET' && new URL(request.url()).pathname === '/api/v1/tasks/1') reads.push(request.url()) })
  await page.evaluate(`location.hash = '#/r/tasks/k/1'`)
  await textIs(page, 'main h1', 'Write docs again')
  assert.deepEqual(streams.map((stream) => stream.ended), [true, true, true, false])
  assert.equal(streams[3]!.filter, 'id = 1')
  await press(page, 'Edit')
  await page.$eval('#field-title', (input) => { (input as unknown as { select: () => void }).select() })
  await page.keyboard.type('Mine, typed')
  await write('PATCH', '/1', { title: 'Theirs', priority: 3 })
  await textIs(page, 'main .elsewhere p', 'Someone else saved this record. Load their version (your changes are dropped), or save yours to see both side by side.')
  assert.equal(await page.$eval('#field-title', (input) => (input as unknown as { value: string }).value), 'Mine, typed')
  assert.equal(await page.$eval('main .elsewhere', (element) => element.getAttribute('role')), 'alert')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation with the warning')
  await server.screenshot(page, 'changes-record-warning')
  await press(page, 'Load their version')
  await textIs(page, 'main h1', 'Theirs')
  await textIs(page, 'main .toast span', 'Their version is shown: your changes were dropped.')

  // The member's own save raises nothing: after it, only the admin's next save is read again (a
  // look of the member's own would read the record once more).
  await press(page, 'Edit')
  await page.$eval('#field-title', (input) => { (input as unknown as { select: () => void }).select() })
  await page.keyboard.type('Mine')
  reads.length = 0
  await press(page, 'Save')
  await textIs(page, 'main .toast span', 'Saved.')
  await write('PATCH', '/1', { priority: 5 })
  // Not editing: their save shows in place.
  await textIs(page, 'main .toast span', 'Someone else saved this record: it is shown as it is now.')
  await textIs(page, 'main .layout-row:nth-of-type(2) .field:nth-child(2) dd', '5')
  assert.equal(reads.length, 2, `the read after the save and the look at the admin's: ${reads.join(' ')}`)
  assert.equal(await page.$('main .elsewhere'), null)

  // Deleted by the admin (the member sees no deleted tasks): gone, and nothing left to do on it.
  await write('DELETE', '/1')
  await textIs(page, 'main .elsewhere p', 'Someone else deleted this record. It is no longer there to see or change.')
  assert.deepEqual(await page.$$eval('main .actions button', (all) => all.map((button) => button.textContent)), [])
  // The look that found it gone.
  assert.deepEqual(errors.splice(0), ['member@example.com: Failed to load resource: the server responded with a status of 404 (Not Found)'])

  // Moved to the blue team: out of the member's reach.
  await page.evaluate(`location.hash = '#/r/tasks/k/2'`)
  await textIs(page, 'main h1', 'Fix bug now')
  await write('PATCH', '/2', { team: 'blue' })
  await textIs(page, 'main .elsewhere p', 'Someone else changed this record out of your reach. It is no longer yours to see or change.')
  assert.deepEqual(errors.splice(0), ['member@example.com: Failed to load resource: the server responded with a status of 404 (Not Found)'])

  // Leaving for a screen without a feed closes the last stream.
  await page.evaluate(`location.hash = '#/'`)
  await page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Welcome'`)
  await page.waitForNetworkIdle({ idleTime: 100 })
  assert.ok(streams.every((stream) => stream.ended), JSON.stringify(streams))

  // An admin, who sees deleted tasks: a task deleted from a list that shows them stays, marked; a
  // record deleted elsewhere shows as deleted, with Restore, and comes back when restored.
  const adminPage = await signIn(server, 'admin@example.com')
  await adminPage.evaluate(`location.hash = '#/r/tasks?f.status=%22done%22&show_deleted=true'`)
  await rowsAre(adminPage, ['Review', 'Plan', 'Test', 'Done red'])
  await write('DELETE', '/3')
  await adminPage.waitForFunction(`document.querySelector('main tbody tr')?.classList.contains('deleted') === true`, { timeout: 5_000 })
  await rowsAre(adminPage, ['Review', 'Plan', 'Test', 'Done red'])
  await adminPage.evaluate(`location.hash = '#/r/tasks/k/6'`)
  await textIs(adminPage, 'main h1', 'Test')
  await write('DELETE', '/6')
  await textIs(adminPage, 'main .toast span', 'Someone else deleted this record.')
  await textIs(adminPage, 'main h1', 'Test (deleted)')
  assert.deepEqual(await adminPage.$$eval('main .actions button', (all) => all.map((button) => button.textContent)), ['Restore'])
  await write('POST', '/6:undelete')
  await textIs(adminPage, 'main .toast span', 'Someone else saved this record: it is shown as it is now.')
  await textIs(adminPage, 'main h1', 'Test')
  assert.deepEqual(errors, [])
})
