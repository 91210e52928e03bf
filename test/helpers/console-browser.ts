// The console's browser tests share this: a server with the console at `/` on a free port, a
// headless chromium, and a signed-in page per user whose browser-console errors are collected.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestContext } from 'node:test'
import type { Browser, Page } from 'puppeteer-core'
import { freePort } from '../../lib/db/embedded.js'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../lib/config/schema.js'
import { freshDatabase, runSql } from './db.js'
import { buildApp, PASSWORD } from './app.js'
import { launchBrowser } from './browser.js'
import { CONSOLE_CSP } from '../../plugins/console/assets.js'

/** Where screenshots go (ignored by git); CI keeps the folder as an artifact. */
export const artifacts = fileURLToPath(new URL('../../../.out-artifacts/console/', import.meta.url))

export interface ConsoleServer {
  readonly origin: string
  readonly databaseUrl: string
  readonly app: FastifyInstance
  readonly browser: Browser
  /** Browser-console errors and uncaught page errors of every page opened by signIn. */
  readonly errors: string[]
  screenshot: (page: Page, name: string) => Promise<void>
}

/** A fresh database with `schema` run, the app listening with the console at `/`, and a browser. */
export async function consoleServer (t: TestContext, config: Config, schema: string): Promise<ConsoleServer> {
  // Launched first, so that it closes first: the app's close waits for the browser's connections.
  const browser = await launchBrowser(t)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, schema)
  const app = await buildApp({ databaseUrl, publicUrl: origin, ...config, console: { path: '/' } })
  await app.listen({ port, host: '127.0.0.1' })
  mkdirSync(artifacts, { recursive: true })
  return {
    origin, databaseUrl, app, browser, errors: [],
    screenshot: async (page, name) => { await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true }) },
  }
}

/** A new browser context signed in as `email` (with the test password) through the console's form. */
export async function signIn (server: ConsoleServer, email: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await server.browser.createBrowserContext()
  const page = await context.newPage()
  page.on('console', (message) => { if (message.type() === 'error') server.errors.push(`${email}: ${message.text()}`) })
  page.on('pageerror', (err) => { server.errors.push(`${email}: ${String(err)}`) })
  await page.setViewport(viewport)
  const landed = await page.goto(`${server.origin}/`)
  assert.equal(landed?.status(), 200)
  assert.equal(landed.headers()['content-security-policy'], CONSOLE_CSP)
  await page.waitForSelector('form input[type=email]')
  await page.type('#email', email)
  await page.type('#password', PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForSelector('nav[aria-label=Main] a')
  return page
}

/**
 * Asserts what has the focus, `expression` read in the page (`document.activeElement.id`), after
 * waiting up to 5 s for it: screens move the focus in an effect, after the render a test waited for.
 */
export async function assertFocus (page: Page, expression: string, expected: string, message?: string): Promise<void> {
  await page.waitForFunction(`(${expression}) === ${JSON.stringify(expected)}`, { timeout: 5_000 }).catch(() => {})
  assert.equal(await page.evaluate(expression), expected, message)
}
