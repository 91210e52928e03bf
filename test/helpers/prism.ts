// Stoplight's Prism as a validating proxy: each request sent through it reaches the real server,
// and Prism checks the request and the real response (status, headers, body) against the OpenAPI
// document, naming every mismatch in the answer's `sl-violations` header. Started from the
// installed package (no network), stopped when the test ends.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import { freePort } from '../../lib/db/embedded.js'

const require = createRequire(import.meta.url)
const PRISM = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js')

export interface Violation {
  readonly location: readonly string[]
  readonly severity: string
  readonly code?: string | number
  readonly message: string
}

/** Starts `prism proxy` over `documentPath` in front of `upstream`; resolves to its origin. */
export async function startPrismProxy (t: TestContext, documentPath: string, upstream: string): Promise<string> {
  const port = await freePort()
  // Node's own 16 KB header limit would refuse, in Prism, a header block the server takes (128 KiB).
  const child = spawn(process.execPath, ['--max-http-header-size=262144', PRISM, 'proxy', documentPath, upstream, '--port', String(port), '--host', '127.0.0.1', '--errors=false', '--verboseLevel', 'error'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.after(() => { child.kill() })
  const origin = `http://127.0.0.1:${port}`
  for (let tries = 0; tries < 300; tries++) {
    if (child.exitCode !== null) throw new Error(`prism exited ${child.exitCode}: ${stderr}`)
    try {
      await (await fetch(`${origin}/api/openapi.json`, { method: 'HEAD' })).arrayBuffer()
      return origin
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`prism did not start: ${stderr}`)
}

/** The mismatches Prism found in one exchange. */
export function violationsOf (response: Response): Violation[] {
  const header = response.headers.get('sl-violations')
  return header === null ? [] : JSON.parse(header) as Violation[]
}
