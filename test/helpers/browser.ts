// A headless browser for the tests that need a real one: Debian's chromium through puppeteer-core,
// with a throwaway profile, closed (and the profile removed) when the test ends.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import puppeteer, { type Browser } from 'puppeteer-core'

const CHROMIUM = '/usr/bin/chromium'

export async function launchBrowser (t: TestContext): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tablegate-chromium-'))
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
  })
  t.after(async () => {
    await browser.close()
    rmSync(profile, { recursive: true, force: true })
  })
  return browser
}
