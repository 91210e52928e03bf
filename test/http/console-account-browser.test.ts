// The console's account screens in a real browser (docs/console.md, "Accounts"): "Forgot password?"
// end to end through the link the reset hook is handed, the notice for an email not verified yet
// with its link sent again, and the account page changing the password and ending other sessions,
// each checked through the API (the old password, the other sessions' cookies). Screenshots
// `forgot-password.png`, `reset-password.png`, `unverified.png`, `account.png`, `account-390.png`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import type { Page } from 'puppeteer-core'
import type { Config } from '../../lib/config/schema.js'
import { createUser, PASSWORD, sessionCookie, signIn as apiSignIn } from '../helpers/app.js'
import { Mailbox } from '../helpers/accounts.js'
import { assertFocus, consoleServer, signIn, type ConsoleServer } from '../helpers/console-browser.js'
import { axeViolations } from '../helpers/axe.js'
import { NOT_VERIFIED, RESET_LINK_UNUSABLE, RESET_REQUESTED, VERIFICATION_SENT } from '../../console/src/account-forms.js'

const NEW_PASSWORD = 'a-new-horse-battery'
const mailbox = new Mailbox()

const CONFIG: Config = {
  roles: { member: ['notes.read'] },
  defaultRole: 'member',
  resources: { notes: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } } },
  signUp: 'open',
  signInPerMinute: 1000,
  emailVerification: { required: true, onSend: (mail) => { mailbox.deliver({ ...mail, kind: 'verification' }) } },
  passwordReset: { onSend: (mail) => { mailbox.deliver({ ...mail, kind: 'reset' }) } },
}

async function accountServer (t: Parameters<typeof consoleServer>[0]): Promise<ConsoleServer> {
  return await consoleServer(t, CONFIG, 'CREATE TABLE notes (id bigserial PRIMARY KEY, title text NOT NULL)')
}

/**
 * A signed-out page at `path`. A refusal the console shows (a wrong password, an unverified email)
 * is also a failed request the browser logs: those are kept apart from other errors.
 */
async function openPage (server: ConsoleServer, path = '/'): Promise<{ page: Page, refused: string[] }> {
  const context = await server.browser.createBrowserContext()
  const page = await context.newPage()
  const refused: string[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const status = /^Failed to load resource: the server responded with a status of (4\d\d)/.exec(message.text())?.[1]
    if (status !== undefined) refused.push(status)
    else server.errors.push(message.text())
  })
  page.on('pageerror', (err) => { server.errors.push(String(err)) })
  await page.goto(`${server.origin}${path}`)
  return { page, refused }
}

/** A screen that puts the focus on its heading as it opens has opened: typing now goes where it is sent. */
async function opened (page: Page, heading: string): Promise<void> {
  await assertFocus(page, 'document.activeElement.textContent', heading)
}

async function text (page: Page, selector: string): Promise<string> {
  await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent.trim()`)
  return await page.$eval(selector, (element) => element.textContent.trim())
}

async function submit (page: Page): Promise<void> {
  await page.click('main button[type=submit]')
}

async function typeSignIn (page: Page, email: string, password: string): Promise<void> {
  await page.waitForSelector('#email')
  await page.type('#email', email)
  await page.type('#password', password)
  await submit(page)
}

async function session (app: FastifyInstance, cookie: string): Promise<unknown> {
  return (await app.inject({ method: 'GET', url: '/api/auth/get-session', headers: { cookie } })).json()
}

async function newSession (app: FastifyInstance, email: string, password = PASSWORD): Promise<string> {
  const response = await apiSignIn(app, email, password, { 'user-agent': 'curl/8.5.0' })
  assert.equal(response.statusCode, 200, response.body)
  return sessionCookie(response)
}

test('forgot password: the same answer for any email, the link lands on the reset screen, the new password signs in and the old one no longer does', async (t) => {
  const server = await accountServer(t)
  await createUser(server.app, 'dana@example.com', 'member')
  const { page, refused } = await openPage(server)
  await page.waitForSelector('a[href="#/forgot-password"]')
  await page.click('a[href="#/forgot-password"]')
  await opened(page, 'Forgot your password?')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the forgot-password screen')

  // An address without an account reads exactly as one with: no mail goes anywhere for it.
  await page.type('#email', 'nobody@example.com')
  await submit(page)
  assert.equal(await text(page, 'main [role=status]'), RESET_REQUESTED)
  assert.ok(await mailbox.noneTo('nobody@example.com'))
  await page.$eval('#email', (input) => { input.value = '' })
  await page.type('#email', 'dana@example.com')
  const answered = page.waitForResponse((response) => response.url().endsWith('/request-password-reset'))
  await submit(page)
  await answered
  assert.equal(await text(page, 'main [role=status]'), RESET_REQUESTED)
  await server.screenshot(page, 'forgot-password')

  // A link whose token was used meanwhile (here through the API) is refused when the form is sent.
  const spent = await mailbox.next('dana@example.com')
  assert.equal(spent.url, `${server.origin}/api/auth/reset-password/${spent.token}?callbackURL=%2F%23%2Freset-password`)
  await page.goto(spent.url)
  await opened(page, 'Set a new password')
  assert.equal(await page.evaluate('location.search + location.hash'), '#/reset-password', 'the token is taken out of the address bar')
  const used = await server.app.inject({ method: 'POST', url: '/api/auth/reset-password', payload: { token: spent.token, newPassword: 'a-third-horse-battery' } })
  assert.equal(used.statusCode, 200, used.body)
  await page.type('#new-password', NEW_PASSWORD)
  await page.type('#repeat-password', NEW_PASSWORD)
  await submit(page)
  assert.equal(await text(page, 'main [role=alert]'), RESET_LINK_UNUSABLE)
  // Followed again, the link lands on the refusal: no form.
  await page.goto(spent.url)
  assert.equal(await text(page, 'main [role=alert]'), RESET_LINK_UNUSABLE)
  assert.equal(await page.$('#new-password'), null)

  await page.click('a[href="#/forgot-password"]')
  await opened(page, 'Forgot your password?')
  await page.type('#email', 'dana@example.com')
  await submit(page)
  assert.equal(await text(page, 'main [role=status]'), RESET_REQUESTED)
  const mail = await mailbox.next('dana@example.com')
  await page.goto(mail.url)
  await opened(page, 'Set a new password')
  // The policy and the repetition are checked before anything is sent, each error at its field.
  await page.type('#new-password', 'short')
  await page.type('#repeat-password', 'short')
  await submit(page)
  assert.equal(await text(page, '#new-password-error'), 'Too short: at least 12 characters.')
  await assertFocus(page, 'document.activeElement.id', 'new-password')
  assert.equal(await page.$eval('#new-password', (input) => input.getAttribute('aria-describedby')), 'new-password-error new-password-hint')
  await page.$eval('#new-password', (input) => { input.value = '' })
  await page.type('#new-password', NEW_PASSWORD)
  await page.type('#repeat-password', '-and-more')
  await submit(page)
  assert.equal(await text(page, '#repeat-password-error'), 'The two passwords differ.')
  await assertFocus(page, 'document.activeElement.id', 'repeat-password')
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the reset screen')
  await server.screenshot(page, 'reset-password')
  await page.$eval('#repeat-password', (input) => { input.value = '' })
  await page.type('#repeat-password', NEW_PASSWORD)
  await submit(page)
  assert.equal(await text(page, 'main .notice'), 'Your new password is set: sign in with it.')
  assert.equal(await page.evaluate('location.hash'), '#/')

  assert.equal((await apiSignIn(server.app, 'dana@example.com', PASSWORD)).statusCode, 401, 'the old password no longer signs in')
  await typeSignIn(page, 'dana@example.com', NEW_PASSWORD)
  await page.waitForSelector('nav[aria-label=Main] a[href="#/r/notes"]')
  assert.deepEqual(refused, ['400'], 'the used token')
  assert.deepEqual(server.errors, [])
})

test('an email not verified yet: sign-in says so, the link is sent again, and once followed the person signs in', async (t) => {
  const server = await accountServer(t)
  await createUser(server.app, 'admin@example.com', 'admin')
  const signedUp = await server.app.inject({ method: 'POST', url: '/api/auth/sign-up/email', payload: { name: 'Eve', email: 'eve@example.com', password: PASSWORD } })
  assert.equal(signedUp.statusCode, 200, signedUp.body)
  await mailbox.next('eve@example.com')

  const { page, refused } = await openPage(server)
  await typeSignIn(page, 'eve@example.com', PASSWORD)
  assert.equal(await text(page, '.unverified [role=alert]'), NOT_VERIFIED)
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation with the notice')
  await server.screenshot(page, 'unverified')
  const [resend] = await page.$$('xpath/.//button[text()="Send the verification email again"]')
  await resend!.click()
  assert.equal(await text(page, '.unverified [role=status]'), VERIFICATION_SENT)
  const mail = await mailbox.next('eve@example.com')
  assert.match(mail.url, /callbackURL=%2F%23%2Fverified$/)

  await page.goto(mail.url)
  assert.equal(await text(page, 'main .notice'), 'Your email is verified: sign in.')
  await typeSignIn(page, 'eve@example.com', PASSWORD)
  await page.waitForSelector('nav[aria-label=Main] a[href="#/r/notes"]')
  assert.equal(await page.evaluate('location.hash'), '#/')
  assert.deepEqual(refused, ['403'], 'the sign-in refused for the unverified email')
  assert.deepEqual(server.errors, [])
})

/** The sessions listed on the account page, as `device|action`. */
async function listedSessions (page: Page, count: number): Promise<string[]> {
  await page.waitForFunction(`document.querySelectorAll('table.sessions tbody tr').length === ${count}`)
  return await page.$$eval('table.sessions tbody tr', (rows) => rows.map((row) => `${row.cells[0]!.textContent}|${row.cells[3]!.textContent}`))
}

test('the account page: a new name, a session ended, the password changed with the other sessions signed out, and all others ended', async (t) => {
  const server = await accountServer(t)
  const { app } = server
  await createUser(app, 'dana@example.com', 'member')
  const phone = await newSession(app, 'dana@example.com')
  const page = await signIn(server, 'dana@example.com')
  assert.equal(await text(page, 'header a.account-link'), 'Your account: dana@example.com')
  await page.click('header a.account-link')
  await page.waitForSelector('table.sessions')
  assert.equal(await page.evaluate('location.hash'), '#/account')
  assert.deepEqual(await listedSessions(page, 2), ['Chrome on Linux|This session', 'curl/8.5.0|Sign out curl/8.5.0, signed in ' + (await page.$eval('table.sessions tbody tr:last-child td:nth-child(3)', (td) => td.textContent))])
  assert.deepEqual(await axeViolations(page), [], 'no WCAG A/AA violation on the account page')
  await server.screenshot(page, 'account')

  await page.$eval('#account-name', (input) => { input.value = '' })
  await page.type('#account-name', 'Dana Scully')
  await page.click('xpath/.//button[text()="Save the name"]')
  await assertFocus(page, 'document.querySelector("header a.account-link").textContent', 'Your account: Dana Scully', 'the header names the user anew')

  // One other session ended: gone from the list, and its cookie yields nothing.
  await page.click('table.sessions tbody tr:last-child button')
  assert.deepEqual(await listedSessions(page, 1), ['Chrome on Linux|This session'])
  assert.match(await text(page, '[aria-labelledby=sessions-heading] [role=status]'), /^Signed out curl\/8\.5\.0, signed in /)
  await assertFocus(page, 'document.activeElement.id', 'sessions-heading')
  assert.equal(await session(app, phone), null)

  // The password changed with the other sessions signed out: a wrong current password first.
  const laptop = await newSession(app, 'dana@example.com')
  await page.type('#current-password', 'not-the-password')
  await page.type('#new-password', NEW_PASSWORD)
  await page.type('#repeat-password', NEW_PASSWORD)
  await page.click('xpath/.//button[text()="Change the password"]')
  assert.equal(await text(page, '#current-password-error'), 'The current password is wrong.')
  await assertFocus(page, 'document.activeElement.id', 'current-password')
  await page.$eval('#current-password', (input) => { input.value = '' })
  await page.type('#current-password', PASSWORD)
  await page.click('#sign-out-others')
  await page.click('xpath/.//button[text()="Change the password"]')
  assert.equal(await text(page, '[aria-labelledby=password-heading] [role=status]'), 'Your password is changed, and your other sessions are signed out.')
  assert.deepEqual(await listedSessions(page, 1), ['Chrome on Linux|This session'])
  assert.equal(await session(app, laptop), null)
  assert.equal((await apiSignIn(app, 'dana@example.com', PASSWORD)).statusCode, 401)

  // Sign out all other sessions: a session made since shows once the page is read again, then goes.
  const tablet = await newSession(app, 'dana@example.com', NEW_PASSWORD)
  await page.reload()
  assert.equal((await listedSessions(page, 2)).length, 2)
  await page.click('xpath/.//button[text()="Sign out all other sessions"]')
  assert.deepEqual(await listedSessions(page, 1), ['Chrome on Linux|This session'])
  assert.equal(await text(page, '[aria-labelledby=sessions-heading] [role=status]'), 'Every other session is signed out.')
  assert.equal(await session(app, tablet), null)
  await page.setViewport({ width: 390, height: 844 })
  assert.ok(await page.evaluate('document.documentElement.scrollWidth') as number <= 390, 'the account page and the header fit 390 px')
  await server.screenshot(page, 'account-390')
  // This browser goes on with a fresh token: its list of notes opens, no sign-in asked.
  await page.click('nav[aria-label=Main] a[href="#/r/notes"]')
  await page.waitForSelector('main table caption')
  assert.equal(await page.$('form input[type=email]'), null)
  assert.deepEqual(server.errors, ['dana@example.com: Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'the wrong current password')
})
