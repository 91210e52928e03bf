// The example shop (`npm start`'s config) in the console: its dashboard charts the orders by
// status with the numbers :facets gives, its orders list shows each order's customer by name as a
// link, and the screenshots README shows are taken here (.out-artifacts/console/example-*).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import shop from '../../examples/shop/tablegate.config.js'
import { caller, bearer, createUser } from '../helpers/app.js'
import { root } from '../helpers/cli.js'
import { artifacts, consoleServer, signIn } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'

test('the example shop\'s console: a dashboard charting orders by status, and orders with their customers linked', async (t) => {
  // The compiled config sits in dist/, its migrations beside the source.
  const server = await consoleServer(t, { ...shop, migrations: join(root, 'examples', 'shop', 'migrations') }, 'SELECT 1')
  await createUser(server.app, 'admin@example.com')
  const admin = caller(server.app, await bearer(server.app, 'admin@example.com'))
  const facets = (await admin('GET', '/api/v1/orders:facets?field=status')).body.facets as Array<{ value: string, count: number }>

  const page = await signIn(server, 'admin@example.com')
  assert.deepEqual(await page.$$eval('nav[aria-label=Main] a', (links) => links.map((a) => a.textContent)), ['Dashboard', 'Orders', 'Customers', 'Order lines', 'Projects', 'Audit log'])
  await page.click('nav[aria-label=Main] a[href="#/p/dashboard"]')
  await page.waitForSelector('figure.chart .chart-numbers tbody tr')
  await page.waitForFunction('document.querySelectorAll("main .list tbody tr").length === 20')
  const numbers = await page.$$eval('figure.chart .chart-numbers tbody tr', (rows) => rows.map((row) => [row.querySelector('th')!.textContent, Number(row.querySelector('td')!.textContent)]))
  assert.deepEqual(numbers, facets.map((facet) => [facet.value, facet.count]))
  assert.deepEqual(await axeViolations(page), [])
  await server.screenshot(page, 'example-dashboard')

  await page.click('nav[aria-label=Main] a[href="#/r/orders"]')
  await page.waitForFunction('document.querySelector("main h1")?.textContent === "Orders" && document.querySelectorAll("main .list tbody tr").length === 20')
  const first = (await admin('GET', '/api/v1/orders?page_size=1&order_by=placed_at%20desc&fields=title,customer_id,customer.name')).body.items[0]
  const cells = await page.$$eval('main .list tbody tr:first-child td', (tds) => tds.map((td) => td.textContent))
  assert.equal(cells[0], first.title)
  assert.equal(cells[1], first.customer.name)
  assert.equal(await page.$eval('main .list tbody tr:first-child td:nth-child(2) a', (a) => a.getAttribute('href')), `#/r/customers/k/${first.customer_id as string}`)
  assert.deepEqual(await axeViolations(page), [])
  await server.screenshot(page, 'example-orders')
  // README's picture (docs/images/console.webp): the first screen only, small enough to ship.
  await page.screenshot({ path: join(artifacts, 'example-orders.webp'), type: 'webp', quality: 90 })
  assert.deepEqual(server.errors, [])
})
