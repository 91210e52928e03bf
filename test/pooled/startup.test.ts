// `tablegate serve` pointed at PgBouncer without DATABASE_POOLER sends its settings in the startup
// packet, which the pooler refuses: the start ends in one line that names the setting to set.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../../lib/db/embedded.js'
import { TEST_SECRET } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(root, 'bin', 'tablegate.js')

test('serve behind a transaction pooler without DATABASE_POOLER exits 1 with one line saying to set DATABASE_POOLER=transaction', async () => {
  const databaseUrl = await freshDatabase()
  const dir = mkdtempSync(join(tmpdir(), 'tablegate-pooled-start-'))
  try {
    const configFile = join(dir, 'config.json')
    writeFileSync(configFile, JSON.stringify({ roles: ['admin', 'user'], dataDir: join(dir, 'data') }))
    const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: TEST_SECRET }
    delete env.DATABASE_POOLER
    delete env.NODE_OPTIONS
    const child = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1', '--port', String(await freePort()), '--config', configFile], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    assert.equal(code, 1)
    assert.equal(stdout, '')
    const at = new URL(databaseUrl)
    at.password = ''
    assert.equal(stderr, `tablegate: cannot connect to DATABASE_URL (${at.href}): unsupported startup parameter: statement_timeout ` +
      '(a transaction pooler answers at this URL: set DATABASE_POOLER=transaction, or databasePooler: \'transaction\' in the config)\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
