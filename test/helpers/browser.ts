// A headless browser for the tests that need a real one: Debian's chromium through puppeteer-core,
// with a throwaway profile, closed (and the profile removed) when the test ends.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import puppeteer, { type Browser } from 'puppeteer-core'

const CHROMIUM = '/usr/bin/chromium'
const CLOSE_WAIT_MS = 10_000

export async function launchBrowser (t: TestContext): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tablegate-chromium-'))
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
  })
  t.after(async () => {
    // A close that chromium never answers would hold the test until the suite's end (once, in CI,
    // 14 minutes): after 10 s its process is killed.
    const closed = browser.close().then(() => true, () => true)
    const timer = new Promise<boolean>((resolve) => { setTimeout(() => { resolve(false) }, CLOSE_WAIT_MS).unref() })
    if (!await Promise.race([closed, timer])) browser.process()?.kill('SIGKILL')
    rmSync(profile, { recursive: true, force: true })
  })
  return browser
}
