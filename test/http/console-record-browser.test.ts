// The console's record screen and forms in a real browser: an agent (whose update and delete stop
// at closed tickets, a record rule) opens a ticket, edits it, meets a server validation error on
// its field, meets two 412s made by concurrent PATCHes and resolves them both ways, creates a
// ticket with an exact decimal, soft-deletes it and brings it back by Undo and by Restore, saves a
// record of a composite key and deletes it for good. A temp, who may not read customers, types a
// customer's id with no picker. The hidden field never shows. Stored values are read back from the
// API and the database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { HTTPRequest, Page } from 'puppeteer-core'
import { runSql, withClient } from '../helpers/db.js'
import { bearer, caller, createUser } from '../helpers/app.js'
import { RECORD_CONFIG, RECORD_SCHEMA } from '../fixtures/console-record.js'
import { consoleServer, signIn, assertFocus } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

const SECRET = 'the-secret-note-value'

interface Write { readonly method: string, readonly path: string, readonly ifMatch: string | undefined, readonly body: unknown }

/** Every write the page sends, as the server received it. */
function writesOf (page: Page): Write[] {
  const writes: Write[] = []
  page.on('request', (request: HTTPRequest) => {
    if (request.method() === 'GET') return
    const data = request.postData()
    writes.push({ method: request.method(), path: new URL(request.url()).pathname, ifMatch: request.headers()['if-match'], body: data === undefined ? undefined : JSON.parse(data) })
  })
  return writes
}

async function open (page: Page, hash: string, heading: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)
  await page.waitForFunction(`document.querySelector('main h1')?.textContent === ${JSON.stringify(heading)}`)
}

/** Sets an input's value as a user would (date and datetime inputs take no locale-free typing). */
async function fill (page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(selector, (element, text) => {
    const input = element as unknown as { value: string, dispatchEvent: (event: unknown) => boolean }
    input.value = text
    input.dispatchEvent(new (globalThis as unknown as { Event: new (type: string, init: object) => unknown }).Event('input', { bubbles: true }))
    input.dispatchEvent(new (globalThis as unknown as { Event: new (type: string, init: object) => unknown }).Event('change', { bubbles: true }))
  }, value)
}

async function press (page: Page, label: string): Promise<void> {
  const [button] = await page.$$(`xpath/.//main//button[text()=${JSON.stringify(label)}]`)
  assert.ok(button !== undefined, `a ${label} button`)
  await button.click()
}

async function buttons (page: Page): Promise<string[]> {
  return await page.$$eval('main .actions button', (all) => all.map((button) => button.textContent ?? ''))
}

async function toast (page: Page, text: string): Promise<void> {
  await page.waitForFunction(`document.querySelector('main .toast span')?.textContent === ${JSON.stringify(text)}`)
}

/** The record screen's values by their labels. */
async function valuesOf (page: Page): Promise<Record<string, string>> {
  return await page.evaluate(`Object.fromEntries([...document.querySelectorAll('main dl.layout-row .field')].map((field) => [field.querySelector('dt').textContent, field.querySelector('dd').textContent]))`) as Record<string, string>
}

async function noOverflow (page: Page): Promise<void> {
  assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 390'), 'no horizontal page overflow at 390 px')
}

test('an agent reads, edits, resolves conflicts, creates, deletes and restores tickets', async (t) => {
  const server = await consoleServer(t, RECORD_CONFIG, RECORD_SCHEMA)
  const { app, databaseUrl, errors } = server
  await createUser(app, 'admin@example.com')
  await createUser(app, 'agent@example.com', 'agent')
  await runSql(databaseUrl, `
    INSERT INTO customers (name) VALUES ('Acme'), ('Globex');
    INSERT INTO customers (name) SELECT 'Customer ' || lpad(n::text, 2, '0') FROM generate_series(1, 11) AS n;
    INSERT INTO tickets (subject, status, notes, priority, amount, urgent, due_on, opened_at, details, code, secret_note, customer_id)
    VALUES ('Printer jams', 'open', 'Second floor', 2, 1234.50, NULL, '2026-03-10', '2026-03-04 05:06:07.123456+00', '{"tray": 2}', 'T-1', '${SECRET}', 1),
           ('Old closed ticket', 'closed', NULL, 1, NULL, false, NULL, NULL, NULL, 'T-2', '${SECRET}', NULL);
    INSERT INTO comments (ticket_id, body) SELECT 1, 'comment ' || n FROM generate_series(1, 4) AS n;
    INSERT INTO comments (ticket_id, body) VALUES (2, 'on the closed ticket');`)
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  const stored = async (id: string): Promise<Record<string, unknown>> => {
    const answer = await admin('GET', `/api/v1/tickets/${id}?show_deleted=true`)
    assert.equal(answer.status, 200)
    return answer.body
  }

  const page = await signIn(server, 'agent@example.com')
  // Far from UTC: a timestamp that went through the browser's own zone would show it.
  await page.emulateTimezone('Pacific/Auckland')
  const writes = writesOf(page)
  const reads: string[] = []
  page.on('request', (request) => { if (request.method() === 'GET' && request.url().includes('/api/v1/tickets/')) reads.push(decodeURIComponent(new URL(request.url()).search)) })

  // The record: its fields in the view's layout (secret_note dropped from it), the rest after;
  // the customer by its title, linked; three comments of four, and a link to the rest.
  await open(page, '#/r/tickets/k/1', 'Printer jams')
  const view = await page.evaluate(`({
    labels: [...document.querySelectorAll('main dl.layout-row')].map((row) => [...row.querySelectorAll('dt')].map((dt) => dt.textContent)),
    customer: [...document.querySelectorAll('main dd a')].map((a) => [a.getAttribute('href'), a.textContent]),
    comments: [...document.querySelectorAll('main .related li a')].map((a) => [a.getAttribute('href'), a.textContent]),
    more: document.querySelector('main .related > a')?.getAttribute('href'),
  })`) as { labels: string[][], customer: string[][], comments: string[][], more: string }
  const values = await valuesOf(page)
  assert.deepEqual(view.labels, [['Subject', 'Status'], ['Customer', 'Priority', 'Amount'], ['Due on', 'Opened at'], ['Notes'], ['Details'],
    ['Id', 'Urgent', 'Paid', 'Code', 'Escalations', 'Version', 'Deleted at']])
  assert.equal(values.Amount, '1234.50')
  assert.equal(values['Opened at'], '2026-03-04 05:06:07.123456 UTC')
  assert.equal(values['Due on'], '2026-03-10')
  assert.equal(values.Urgent, '—')
  assert.equal(values.Paid, 'No')
  assert.equal(values.Details, JSON.stringify({ tray: 2 }, null, 2))
  assert.deepEqual(view.customer, [['#/r/customers/k/1', 'Acme']])
  assert.deepEqual(view.comments, [['#/r/comments/k/1', 'comment 1'], ['#/r/comments/k/2', 'comment 2'], ['#/r/comments/k/3', 'comment 3']])
  assert.equal(view.more, `#/r/comments?${new URLSearchParams({ filter: 'ticket_id = 1' })}`)
  assert.deepEqual(await buttons(page), ['Edit', 'Delete'])
  // One read, of the agent's own fields and both relations; the agent reads deleted_at, so the
  // read asks for deleted tickets too and tells them by it.
  assert.deepEqual(reads, ['?fields=id,subject,status,notes,priority,amount,urgent,paid,due_on,opened_at,details,code,escalations,customer_id,version,deleted_at,customer,comments&show_deleted=true'])
  assert.equal(await page.evaluate(`document.body.innerHTML.includes(${JSON.stringify(SECRET)}) || document.body.innerText.includes('Secret')`), false)
  await server.screenshot(page, 'record')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the record')
  // "More comments" opens the comments list filtered to this ticket, the filter a removable chip.
  await page.click('main .related > a')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Comments" && document.querySelectorAll("main .list tbody tr").length === 4')
  assert.deepEqual(await page.$$eval('main .list tbody tr td:first-child', (tds) => tds.map((td) => td.textContent)), ['1: comment 1', '2: comment 2', '3: comment 3', '4: comment 4'])
  assert.deepEqual(await page.$$eval('main .chips .chip', (chips) => chips.map((chip) => chip.textContent)), ['Remove Filter: ticket_id = 1 ×'])
  await page.goBack()
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Printer jams"')

  // The edit form, typed from the agent's model; code is set on create only, so not here.
  await press(page, 'Edit')
  await page.waitForSelector('main form.record-form')
  const controls = await page.evaluate(`Object.fromEntries([...document.querySelectorAll('main form [id^=field-]')].filter((c) => !c.id.endsWith('-error') && !c.id.endsWith('-hint'))
    .map((c) => [c.id.slice(6), [c.tagName.toLowerCase(), c.type, c.value, c.getAttribute('inputmode') ?? '', c.getAttribute('min') ?? '', c.getAttribute('max') ?? '']]))`) as Record<string, string[]>
  assert.deepEqual(controls, {
    subject: ['input', 'text', 'Printer jams', '', '', ''],
    status: ['select', 'select-one', 'open', '', '', ''],
    customer_id: ['input', 'text', '1', 'numeric', '', ''],
    priority: ['input', 'number', '2', '', '1', '5'],
    amount: ['input', 'text', '1234.50', 'decimal', '', ''],
    due_on: ['input', 'date', '2026-03-10', '', '', ''],
    opened_at: ['input', 'datetime-local', '2026-03-04T05:06:07', '', '', ''],
    notes: ['textarea', 'textarea', 'Second floor', '', '', ''],
    details: ['textarea', 'textarea', JSON.stringify({ tray: 2 }, null, 2), '', '', ''],
    urgent: ['select', 'select-one', '', '', '', ''],
    paid: ['input', 'checkbox', 'on', '', '', ''],
  })
  assert.deepEqual(await page.$$eval('#field-status option', (options) => options.map((o) => o.textContent)), ['open', 'waiting', 'closed'])
  assert.equal(await page.$eval('#field-subject', (input) => input.getAttribute('maxlength')), '80')
  assert.equal(await page.$eval('main form', (form) => form.getAttribute('aria-label')), 'Edit Printer jams')
  await server.screenshot(page, 'record-edit')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the edit form')

  // A save sends only what changed, with the ETag the record was read at.
  const etag = (await stored('1')).etag
  await fill(page, '#field-priority', '4')
  await fill(page, '#field-amount', '99.90')
  await press(page, 'Save')
  await toast(page, 'Saved.')
  assert.deepEqual(writes.splice(0), [{ method: 'PATCH', path: '/api/v1/tickets/1', ifMatch: etag, body: { priority: 4, amount: '99.90' } }])
  const saved = await stored('1')
  assert.deepEqual([saved.priority, saved.amount, saved.notes, saved.opened_at], [4, '99.90', 'Second floor', '2026-03-04T05:06:07.123456Z'])
  assert.deepEqual([(await valuesOf(page)).Priority, (await valuesOf(page)).Amount], ['4', '99.90'])

  // A rule only the server knows refuses the subject: the message is on that field, and what the
  // agent typed stays.
  await press(page, 'Edit')
  await fill(page, '#field-subject', 'URGENT printer')
  await press(page, 'Save')
  await page.waitForSelector('#field-subject[aria-invalid=true]')
  assert.deepEqual(await page.$eval('#field-subject', (input) => [(input as unknown as { value: string }).value, input.getAttribute('aria-describedby')]), ['URGENT printer', 'field-subject-error'])
  assert.equal(await page.$eval('#field-subject-error', (error) => error.textContent), 'Use the urgent flag rather than writing "urgent" in the subject.')
  await assertFocus(page, 'document.activeElement.id', 'field-subject')
  assert.equal((await stored('1')).subject, 'Printer jams')
  await press(page, 'Cancel')
  writes.length = 0

  // A 412, resolved by taking their version.
  const agent = caller(app, await bearer(app, 'agent@example.com'))
  await press(page, 'Edit')
  assert.equal((await agent('PATCH', '/api/v1/tickets/1', { payload: { subject: 'Printer jams again', priority: 2 }, headers: { 'if-match': '*' } })).status, 200)
  await fill(page, '#field-priority', '5')
  await press(page, 'Save')
  await page.waitForSelector('main .conflict')
  assert.deepEqual(await page.$$eval('main .conflict tbody tr', (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))), [['Priority', '2', '5']])
  await assertFocus(page, 'document.activeElement.id', 'conflict-heading')
  assert.deepEqual([await page.$eval('main h1', (h1) => h1.textContent), (await valuesOf(page)).Priority], ['Printer jams again', '2'], 'the record as it is now')
  await server.screenshot(page, 'record-conflict')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the conflict')
  await press(page, 'Reload')
  await toast(page, 'Reloaded: your changes were dropped.')
  assert.equal(await page.$eval('main h1', (h1) => h1.textContent), 'Printer jams again')
  assert.deepEqual([(await stored('1')).priority, writes.length], [2, 1])

  // Another 412, resolved by sending the agent's change again over theirs: both stay.
  await press(page, 'Edit')
  assert.equal((await agent('PATCH', '/api/v1/tickets/1', { payload: { notes: 'Fixed the tray' }, headers: { 'if-match': '*' } })).status, 200)
  await fill(page, '#field-priority', '3')
  await press(page, 'Save')
  await page.waitForSelector('main .conflict')
  assert.deepEqual(await page.$$eval('main .conflict tbody tr', (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))), [['Priority', '2', '3']])
  const theirs = (await stored('1')).etag
  writes.length = 0
  await press(page, 'Reapply my changes')
  await toast(page, 'Saved.')
  assert.deepEqual(writes.splice(0), [{ method: 'PATCH', path: '/api/v1/tickets/1', ifMatch: theirs, body: { priority: 3 } }])
  const reapplied = await stored('1')
  assert.deepEqual([reapplied.subject, reapplied.notes, reapplied.priority], ['Printer jams again', 'Fixed the tray', 3])

  // The customer is picked by title: ten a page by name, More for the next, then a search; the
  // choice is saved as its id.
  await press(page, 'Edit')
  assert.equal(await page.$eval('#pick-customer_id-title', (title) => title.textContent), 'Acme')
  assert.equal(await page.$eval('#field-customer_id', (input) => input.getAttribute('aria-describedby')), 'pick-customer_id-title')
  const options = 'JSON.stringify([...document.querySelectorAll("main .reference-options button")].map((b) => b.textContent))'
  const names = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `Customer ${String(from + i).padStart(2, '0')}`)
  await press(page, 'Choose customer')
  await page.waitForFunction(`${options} === ${JSON.stringify(JSON.stringify(['Acme', ...names(1, 9)]))}`)
  await press(page, 'More customers')
  await page.waitForFunction(`${options} === ${JSON.stringify(JSON.stringify(['Acme', ...names(1, 11), 'Globex']))}`)
  await assertFocus(page, 'document.activeElement.textContent', 'Customer 10', 'focus on the first record More brought')
  await page.type('#pick-customer_id', 'glob')
  await page.keyboard.press('Enter')
  await page.waitForFunction(`${options} === ${JSON.stringify(JSON.stringify(['Globex']))}`)
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the reference picker')
  await server.screenshot(page, 'record-picker')
  await press(page, 'Globex')
  await assertFocus(page, 'document.activeElement.id', 'field-customer_id')
  assert.deepEqual(await page.evaluate('[document.querySelector("#field-customer_id").value, document.activeElement.id, document.querySelector("#pick-customer_id-title").textContent]'),
    ['2', 'field-customer_id', 'Globex'])
  writes.length = 0
  await press(page, 'Save')
  await toast(page, 'Saved.')
  assert.deepEqual(writes.splice(0).map((write) => write.body), [{ customer_id: '2' }])
  assert.equal(String((await stored('1')).customer_id), '2')
  assert.equal(await page.$eval('main dd a[href="#/r/customers/k/2"]', (a) => a.textContent), 'Globex')
  // An id can still be typed: the title goes, since the input no longer names the record chosen.
  await press(page, 'Edit')
  await fill(page, '#field-customer_id', '1')
  assert.equal(await page.$eval('#pick-customer_id-title', (title) => title.textContent), '')
  await press(page, 'Save')
  await toast(page, 'Saved.')
  assert.deepEqual(writes.splice(0).map((write) => write.body), [{ customer_id: '1' }])
  assert.equal(await page.$eval('main dd a[href="#/r/customers/k/1"]', (a) => a.textContent), 'Acme')

  // Leaving a form with unsaved changes by a link asks first: Stay keeps the form and what was
  // typed, Leave goes where the link led. Nothing is saved either way.
  await press(page, 'Edit')
  await fill(page, '#field-priority', '1')
  await page.click('main .crumbs a')
  await page.waitForSelector('main .unsaved')
  await assertFocus(page, 'document.activeElement.textContent', 'Stay')
  assert.deepEqual(await page.evaluate('[location.hash, document.querySelector("main .unsaved p").textContent, document.activeElement.textContent]'),
    ['#/r/tickets/k/1', 'You have unsaved changes.', 'Stay'])
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the unsaved-changes prompt')
  await press(page, 'Stay')
  assert.deepEqual(await page.evaluate('[document.querySelector("main .unsaved"), document.querySelector("#field-priority").value, location.hash]'), [null, '1', '#/r/tickets/k/1'])
  await page.click('nav[aria-label=Main] a[href="#/r/customers"]')
  await page.waitForSelector('main .unsaved')
  await press(page, 'Leave')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Customers"')
  assert.deepEqual([(await stored('1')).priority, writes.length], [3, 0])
  // Back and Forward are held as links are: the move is undone, the form keeps what was typed,
  // and Leave makes it. The tab's history stays as it was.
  await page.goBack()
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Printer jams again"')
  const entries = await page.evaluate('history.length')
  await press(page, 'Edit')
  await fill(page, '#field-priority', '1')
  await page.goBack()
  await page.waitForSelector('main .unsaved')
  await page.waitForFunction('location.hash === "#/r/tickets/k/1"')
  assert.deepEqual(await page.evaluate('[document.querySelector("#field-priority").value, document.querySelector("main h1").textContent]'), ['1', 'Printer jams again'])
  await press(page, 'Stay')
  await page.goForward()
  await page.waitForSelector('main .unsaved')
  await page.waitForFunction('location.hash === "#/r/tickets/k/1"')
  assert.equal(await page.$eval('#field-priority', (input) => (input as unknown as { value: string }).value), '1')
  await press(page, 'Leave')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Customers"')
  assert.equal(await page.evaluate('history.length'), entries)
  await page.goBack()
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Printer jams again" && document.querySelector("main dl") !== null')
  assert.deepEqual([(await stored('1')).priority, writes.length], [3, 0])

  // A closed ticket: the record rule leaves the agent nothing to do with it.
  await open(page, '#/r/tickets/k/2', 'Old closed ticket')
  assert.deepEqual(await buttons(page), [])

  // Customers are the admin's to create: no New link, and no form behind the link.
  await open(page, '#/r/customers', 'Customers')
  assert.equal(await page.$('main a.new'), null)
  await page.evaluate(`location.hash = '#/r/customers/new'`)
  await page.waitForFunction('document.querySelector("main [role=alert]")?.textContent === "There is nothing here for you."')

  // A create, from the list's New link: the decimal goes as the text typed, the timestamp in UTC;
  // bad JSON is refused before anything is sent.
  await open(page, '#/r/tickets', 'Tickets')
  await page.click('main a.new')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "New record in Tickets"')
  assert.equal(await page.$('#field-escalations'), null)
  assert.equal(await page.$eval('#field-status', (select) => (select as unknown as { value: string }).value), 'open')
  await page.type('#field-subject', 'Scanner offline')
  await page.type('#field-amount', '12.30')
  await page.type('#field-code', 'T-100')
  await fill(page, '#field-opened_at', '2026-05-06T07:08:09')
  await fill(page, '#field-due_on', '2026-05-31')
  await page.type('#field-details', '{bad')
  await page.type('#field-priority', '9')
  await press(page, 'Create')
  await page.waitForSelector('#field-details[aria-invalid=true]')
  assert.equal(await page.$eval('#field-details-error', (error) => error.textContent), 'Must be valid JSON.')
  assert.equal(await page.$eval('#field-priority-error', (error) => error.textContent), 'Must be at most 5.')
  await assertFocus(page, 'document.activeElement.id', 'field-priority', 'focus on the first field in error')
  // Text a number input cannot read leaves its value empty: refused, not taken for "no priority".
  await page.click('#field-priority', { count: 3 })
  await page.type('#field-priority', '1e')
  await press(page, 'Create')
  await page.waitForFunction('document.querySelector("#field-priority-error")?.textContent === "Must be a number."')
  assert.equal(writes.length, 0)
  await fill(page, '#field-details', '{"ports": [1, 2]}')
  await fill(page, '#field-priority', '5')
  await page.select('#field-urgent', 'true')
  await page.click('#field-paid')
  await press(page, 'Create')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Scanner offline"')
  await toast(page, 'Created.')
  assert.deepEqual(writes.splice(0), [{
    method: 'POST', path: '/api/v1/tickets', ifMatch: undefined,
    body: { subject: 'Scanner offline', status: 'open', priority: 5, amount: '12.30', urgent: true, paid: true, due_on: '2026-05-31', opened_at: '2026-05-06T07:08:09Z', details: { ports: [1, 2] }, code: 'T-100' },
  }])
  const id = /^#\/r\/tickets\/k\/(\d+)$/.exec(await page.evaluate('location.hash') as string)?.[1]
  assert.ok(id !== undefined)
  const row = await withClient(databaseUrl, async (client) => (await client.query(`SELECT amount::text, opened_at = '2026-05-06 07:08:09+00' AS at, code, paid FROM tickets WHERE id = $1`, [id])).rows[0])
  assert.deepEqual(row, { amount: '12.30', at: true, code: 'T-100', paid: true })

  // Soft delete with If-Match, then Undo (focus moves to it: the Delete button is gone).
  const before = (await stored(id)).etag
  await press(page, 'Delete')
  await toast(page, 'Deleted.')
  await assertFocus(page, 'document.activeElement.textContent', 'Undo')
  assert.equal(await page.$eval('main h1', (h1) => h1.textContent), 'Scanner offline (deleted)')
  assert.deepEqual(writes.splice(0), [{ method: 'DELETE', path: `/api/v1/tickets/${id}`, ifMatch: before, body: undefined }])
  assert.notEqual((await stored(id)).deleted_at, null)
  await page.keyboard.press('Enter')
  await toast(page, 'Restored.')
  assert.deepEqual(writes.splice(0).map((write) => `${write.method} ${write.path}`), [`POST /api/v1/tickets/${id}:undelete`])
  assert.equal((await stored(id)).deleted_at, null)
  assert.deepEqual(await buttons(page), ['Edit', 'Delete'])

  // Deleted, then opened afresh: shown as deleted (show_deleted), with Restore.
  await press(page, 'Delete')
  await toast(page, 'Deleted.')
  await page.reload()
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Scanner offline (deleted)"')
  assert.deepEqual(await buttons(page), ['Restore'])
  await press(page, 'Restore')
  await toast(page, 'Restored.')
  assert.equal((await stored(id)).deleted_at, null)

  // A delete over a stale ETag is refused, said in an alert, and the record shown as it is now.
  assert.equal((await agent('PATCH', `/api/v1/tickets/${id}`, { payload: { notes: 'Moved' }, headers: { 'if-match': '*' } })).status, 200)
  await press(page, 'Delete')
  await page.waitForFunction('document.querySelector("main [role=alert]")?.textContent === "Not deleted: the record changed after you opened it. It is shown as it is now."')
  assert.equal((await valuesOf(page)).Notes, 'Moved')
  assert.equal((await stored(id)).deleted_at, null)

  // The refusals the browser logs are exactly the ones this test made.
  // (The deleted ticket opened afresh made none: no read is made to fail.)
  assert.deepEqual(errors.map((error) => /status of (\d+)/.exec(error)?.[1] ?? error), ['400', '412', '412', '412'])
  errors.length = 0

  // A composite key whose part holds the separator: opened and saved by its URL form.
  await runSql(databaseUrl, `INSERT INTO shelves VALUES ('eu,west', 7, 'Top')`)
  writes.length = 0
  await open(page, `#/r/shelves/k/${encodeURIComponent(`${encodeURIComponent('eu,west')},7`)}`, 'Top (eu,west 7)')
  await press(page, 'Edit')
  await fill(page, '#field-label', 'Top shelf')
  await press(page, 'Save')
  await toast(page, 'Saved.')
  assert.deepEqual(writes.map((write) => [write.method, write.path, write.body]), [['PATCH', '/api/v1/shelves/eu%2Cwest,7', { label: 'Top shelf' }]])
  assert.equal(await page.$eval('main h1', (h1) => h1.textContent), 'Top shelf (eu,west 7)')
  assert.deepEqual(await withClient(databaseUrl, async (client) => (await client.query('SELECT region, number, label FROM shelves')).rows), [{ region: 'eu,west', number: 7, label: 'Top shelf' }])
  // Shelves have no soft delete, so no Undo: Delete asks first, with the focus on Cancel, which
  // keeps the shelf; Delete for good deletes it under its ETag and returns to the list.
  const shelf = (await page.evaluate('location.hash')) as string
  await press(page, 'Delete')
  await page.waitForSelector('main .confirm')
  await assertFocus(page, 'document.activeElement.textContent', 'Cancel')
  assert.equal(await page.$eval('main .confirm p', (question) => question.textContent), 'Delete Top shelf (eu,west 7) for good? It cannot be restored.')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the delete question')
  await server.screenshot(page, 'record-delete')
  await press(page, 'Cancel')
  assert.equal(await page.$('main .confirm'), null)
  await press(page, 'Delete')
  await page.waitForSelector('main .confirm')
  writes.length = 0
  await press(page, 'Delete for good')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Shelves"')
  await toast(page, 'Deleted Top shelf (eu,west 7).')
  assert.deepEqual(writes.map((write) => [write.method, write.path, write.ifMatch !== undefined]), [['DELETE', '/api/v1/shelves/eu%2Cwest,7', true]])
  assert.equal((await withClient(databaseUrl, async (client) => await client.query('SELECT 1 FROM shelves'))).rowCount, 0)
  await page.evaluate(`location.hash = ${JSON.stringify(shelf)}`)
  await page.waitForFunction('document.querySelector("main [role=alert]")?.textContent === "There is no such record, or it is not yours to see."')
  assert.deepEqual(errors.splice(0).map((error) => /status of (\d+)/.exec(error)?.[1] ?? error), ['404'])

  // The admin reads the secret note, in the layout's last row: the agent's screen lacked it
  // because the agent may not read it, not because the screen leaves it out.
  const adminPage = await signIn(server, 'admin@example.com')
  await open(adminPage, '#/r/tickets/k/2', 'Old closed ticket')
  assert.equal((await valuesOf(adminPage))['Secret note'], SECRET)
  assert.deepEqual(await buttons(adminPage), ['Edit', 'Delete'])

  // A temp may not read customers, so has no customer relation: the reference is its id, shown and
  // typed as such, with no link and no picker. To the temp no customer exists, so the server
  // refuses any id it is given, on the field, and nothing is stored.
  await createUser(app, 'temp@example.com', 'temp')
  const temp = await signIn(server, 'temp@example.com')
  const tempWrites = writesOf(temp)
  await open(temp, '#/r/tickets/k/1', 'Printer jams again')
  assert.equal((await valuesOf(temp))['Customer id'], '1')
  assert.equal(await temp.$('main a[href^="#/r/customers"]'), null)
  await press(temp, 'Edit')
  await temp.waitForSelector('main form.record-form')
  assert.deepEqual(await temp.evaluate('[document.querySelector("#field-customer_id").type, [...document.querySelectorAll("main button")].map((b) => b.textContent).includes("Choose customer")]'), ['text', false])
  await fill(temp, '#field-customer_id', '2')
  await press(temp, 'Save')
  await temp.waitForSelector('#field-customer_id[aria-invalid=true]')
  assert.equal(await temp.$eval('#field-customer_id-error', (error) => error.textContent), 'customer_id names no customers record.')
  assert.deepEqual(tempWrites.map((write) => write.body), [{ customer_id: '2' }])
  assert.equal(String((await stored('1')).customer_id), '1')
  assert.deepEqual(errors.splice(0), ['temp@example.com: Failed to load resource: the server responded with a status of 400 (Bad Request)'])

  // 390 px wide: the record and its form fit without a page-wide scrollbar.
  const narrow = await signIn(server, 'agent@example.com', { width: 390, height: 844 })
  await open(narrow, '#/r/tickets/k/1', 'Printer jams again')
  await noOverflow(narrow)
  await server.screenshot(narrow, 'record-390')
  await press(narrow, 'Edit')
  await narrow.waitForSelector('main form.record-form')
  await noOverflow(narrow)
  await press(narrow, 'Choose customer')
  await narrow.waitForSelector('main .reference-options button')
  await noOverflow(narrow)
  await server.screenshot(narrow, 'record-picker-390')
  assert.equal(await narrow.evaluate(`document.body.innerHTML.includes(${JSON.stringify(SECRET)})`), false)

  // Closing the ticket ends what the record rule lets the agent do with it: the answer's own
  // permissions say so, and Edit and Delete go.
  await narrow.select('#field-status', 'closed')
  await press(narrow, 'Save')
  await toast(narrow, 'Saved.')
  assert.deepEqual(await buttons(narrow), [])
  assert.equal((await stored('1')).status, 'closed')
  assert.deepEqual(errors, [])
})
