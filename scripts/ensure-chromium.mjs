// `npm test` (pretest): the docs are tested in a real browser, Debian's chromium
// (test/http/docs-browser.test.ts), which no npm package can bring here. When it is missing and
// this is root on Debian, install it as CI does; otherwise say what to install.
import { existsSync } from 'node:fs'
import { execFileSync } from 'node:child_process'

const CHROMIUM = '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  const root = process.getuid?.() === 0
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(`npm test needs Debian's chromium at ${CHROMIUM} for the docs browser test: sudo apt-get install chromium`)
    process.exit(1)
  }
  console.log(`${CHROMIUM} is missing: installing Debian's chromium for the docs browser test`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env })
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env })
}
