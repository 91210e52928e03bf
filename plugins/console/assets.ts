// The console's prebuilt files (scripts/build-console.mjs writes them next to this module's
// compiled form, in app/), read once at start into answers: a hashed asset is immutable, the page
// that names them is revalidated every time, so a new build is picked up on the next load.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { extname, join } from 'node:path'

export interface StaticAnswer {
  readonly body: Buffer
  readonly headers: Readonly<Record<string, string>>
}

export interface ConsoleFiles {
  readonly index: StaticAnswer
  /** By file name under `assets/`. */
  readonly assets: ReadonlyMap<string, StaticAnswer>
}

/** Only what the bundle itself needs: no inline script or style, no eval, requests to this origin. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}

const COMMON = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }

export const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url))

function escapeAttribute (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/**
 * What the console offers of the accounts people manage themselves: which of their routes are
 * there (a flow that is off answers 404) and the password policy, so a form can say it before
 * sending.
 */
export interface ConsoleAccounts {
  readonly passwordReset: boolean
  readonly emailVerification: boolean
  readonly passwordMinLength: number
  readonly passwordMaxLength: number
}

/**
 * The files of `dir`: index.html with the API's whereabouts and the account flows filled in (in
 * meta tags, since the CSP allows no inline script), and every file of assets/.
 */
export function loadConsoleFiles (dir: string, where: { readonly apiRoot: string, readonly basePath: string, readonly consolePath: string, readonly accounts: ConsoleAccounts }): ConsoleFiles {
  const indexFile = join(dir, 'index.html')
  if (!existsSync(indexFile)) throw new Error(`console: ${indexFile} is missing: the package was built without its console (npm run build)`)
  const page = readFileSync(indexFile, 'utf8')
    .replaceAll('%API_ROOT%', escapeAttribute(where.apiRoot))
    .replaceAll('%BASE_PATH%', escapeAttribute(where.basePath))
    .replaceAll('%CONSOLE_PATH%', escapeAttribute(where.consolePath))
    .replaceAll('%ACCOUNTS%', escapeAttribute(JSON.stringify(where.accounts)))
  const index: StaticAnswer = {
    body: Buffer.from(page),
    headers: { ...COMMON, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': CONSOLE_CSP },
  }
  const assets = new Map<string, StaticAnswer>()
  for (const name of readdirSync(join(dir, 'assets'))) {
    const type = TYPES[extname(name)]
    if (type === undefined) continue
    assets.set(name, { body: readFileSync(join(dir, 'assets', name)), headers: { ...COMMON, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' } })
  }
  return { index, assets }
}
