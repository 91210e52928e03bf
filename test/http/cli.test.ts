// The `tablegate` command line against a fresh database, and the tokens it mints checked over HTTP
// against the JWKS of an app on the same database. The commands run in this process (main() as
// bin/tablegate.js calls it); a few tests spawn the real bin/tablegate.js over dist/, so the
// binary itself stays covered: its Node check, --help, a refusal read from a real environment,
// a JSON config and a TypeScript one through tsx, and `serve`.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose'
import { buildApp, json, sessionCookie, signIn } from '../helpers/app.js'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { freePort } from '../../lib/db/embedded.js'
import { bin, cliRunner, cliRunnerInProcess, ok, refusal, root } from '../helpers/cli.js'

const SECRET = 'cli-test-secret-0123456789-abcdefghijklmnop'
const STRONG = 'a-strong-password-123'

const databaseUrl = await freshDatabase()
const dir = mkdtempSync(join(tmpdir(), 'tablegate-cli-'))
const config = join(dir, 'config.json')
const threeRoles = join(dir, 'three-roles.json')
const emptyDir = join(dir, 'empty')
const audited = join(dir, 'audited.mjs')
writeFileSync(config, JSON.stringify({ roles: ['admin', 'user'] }))
writeFileSync(threeRoles, JSON.stringify({ roles: ['admin', 'user', 'editor'] }))
writeFileSync(join(dir, 'typo.json'), JSON.stringify({ rols: ['admin', 'user'] }))
writeFileSync(audited, `import { auditLog } from '${pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href}'
export default { roles: ['admin', 'user'], plugins: [auditLog] }
`)
mkdirSync(emptyDir)
after(() => { rmSync(dir, { recursive: true, force: true }) })

const cli = cliRunnerInProcess({ databaseUrl, secret: SECRET, config })
const spawned = cliRunner({ databaseUrl, secret: SECRET, config })

let password = ''

test('user create --generate-password prints the password once; it signs in and its token verifies against the JWKS', async () => {
  const created = await cli(['user', 'create', '--email', 'A@Example.com', '--generate-password'])
  ok(created, 'create')
  const match = /^password: (\S+)$/m.exec(created.stdout)
  assert.ok(match, created.stdout)
  password = match[1]!
  assert.ok(password.length >= 12)
  assert.equal(created.stdout.split(password).length - 1, 1, 'the password is printed exactly once')
  assert.match(created.stdout, /created a@example\.com with role admin/)

  const app = await buildApp({ databaseUrl, authSecret: SECRET })
  const signedIn = await signIn(app, 'a@example.com', password)
  assert.equal(signedIn.statusCode, 200, signedIn.body)
  const tokenResponse = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie: sessionCookie(signedIn) } })
  assert.equal(tokenResponse.statusCode, 200, tokenResponse.body)
  const jwks = await app.inject({ method: 'GET', url: '/api/auth/jwks' })
  assert.equal(jwks.statusCode, 200)
  const keySet = createLocalJWKSet(json(jwks))
  const { payload, protectedHeader } = await jwtVerify(json(tokenResponse).token, keySet, {
    issuer: 'http://localhost:5173', audience: 'http://localhost:5173', algorithms: ['EdDSA'],
  })
  assert.equal(protectedHeader.alg, 'EdDSA')
  assert.equal(payload.role, 'admin')
  assert.equal(payload.exp! - payload.iat!, 900)

  // A token minted on the host is signed with the same keys and accepted by the API. Spawned: a
  // command of the real binary with a JSON config, its stdout exactly the token and a newline.
  const minted = await spawned(['token', '--email', 'a@example.com'])
  ok(minted, 'token')
  const jwt = minted.stdout.trim()
  assert.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/)
  assert.equal(minted.stdout, jwt + '\n')
  const verified = await jwtVerify(jwt, keySet, { issuer: 'http://localhost:5173', audience: 'http://localhost:5173' })
  assert.equal(verified.payload.sub, payload.sub)
  assert.equal(verified.payload.exp! - verified.payload.iat!, 900)
  const call = await app.inject({ method: 'GET', url: '/api/v1/anything', headers: { authorization: `Bearer ${jwt}` } })
  assert.notEqual(call.statusCode, 401, call.body)
})

test('token --json prints { token, expiresAt }; --ttl is bounded by 24 hours', async () => {
  const [asJson, day, tooLong, zero] = await Promise.all([
    cli(['token', '--email', 'a@example.com', '--json']),
    cli(['token', '--email', 'a@example.com', '--ttl', '86400', '--json']),
    cli(['token', '--email', 'a@example.com', '--ttl', '86401']),
    cli(['token', '--email', 'a@example.com', '--ttl', '0']),
  ])
  ok(asJson, 'token --json')
  const issued = JSON.parse(asJson.stdout) as { token: string, expiresAt: string }
  assert.deepEqual(Object.keys(issued).sort(), ['expiresAt', 'token'])
  const claims = decodeJwt(issued.token)
  assert.equal(claims.exp! - claims.iat!, 900)
  assert.equal(issued.expiresAt, new Date(claims.exp! * 1000).toISOString())
  ok(day, 'token --ttl 86400')
  const dayClaims = decodeJwt((JSON.parse(day.stdout) as { token: string }).token)
  assert.equal(dayClaims.exp! - dayClaims.iat!, 86400)
  refusal(tooLong, 'token --ttl 86401', /86400/)
  refusal(zero, 'token --ttl 0', /ttl/)
})

test('user create with a password, list, list --json, set-role, ban, unban and delete', async () => {
  ok(await cli(['user', 'create', '--email', 'b@example.com', '--password', STRONG, '--name', 'Bea']), 'create b')

  const [table, asJson] = await Promise.all([cli(['user', 'list']), cli(['user', 'list', '--json'])])
  ok(table, 'list')
  const lines = table.stdout.trimEnd().split('\n')
  assert.equal(lines.length, 3, table.stdout)
  assert.match(lines[0]!, /EMAIL\s+ROLE\s+BANNED/)
  assert.match(lines[1]!, /^a@example\.com\s+admin\s+no\s/)
  assert.match(lines[2]!, /^b@example\.com\s+user\s+no\s/)
  ok(asJson, 'list --json')
  const listed = JSON.parse(asJson.stdout) as Array<Record<string, unknown>>
  assert.deepEqual(listed.map((u) => Object.keys(u).sort()), [0, 1].map(() => ['banned', 'createdAt', 'email', 'id', 'role']))
  assert.deepEqual(listed.map((u) => [u.email, u.role, u.banned]), [['a@example.com', 'admin', false], ['b@example.com', 'user', false]])
  assert.ok(!asJson.stdout.includes(STRONG) && !asJson.stdout.includes(password) && !asJson.stdout.includes('argon2'))

  const promoted = await cli(['user', 'set-role', '--email', 'b@example.com', '--role', 'admin,user'])
  ok(promoted, 'set-role')
  assert.match(promoted.stdout, /b@example\.com now has role admin,user/)
  const banned = await cli(['user', 'ban', '--email', 'b@example.com'])
  ok(banned, 'ban')
  assert.match(banned.stdout, /b@example\.com is banned/)
  const refusedToken = await cli(['token', '--email', 'b@example.com'])
  refusal(refusedToken, 'token for a banned user', /banned/)
  const unbanned = await cli(['user', 'unban', '--email', 'b@example.com'])
  ok(unbanned, 'unban')
  assert.match(unbanned.stdout, /no longer banned/)

  // TABLEGATE_CONFIG is honoured (over ./tablegate.config.ts in the working directory).
  const viaEnv = await cli(['user', 'set-role', '--email', 'b@example.com', '--role', 'editor'], { config: null, env: { TABLEGATE_CONFIG: threeRoles } })
  ok(viaEnv, 'set-role with TABLEGATE_CONFIG')
  assert.match(viaEnv.stdout, /now has role editor/)
  // --config wins over TABLEGATE_CONFIG.
  refusal(await cli(['user', 'set-role', '--email', 'b@example.com', '--role', 'editor'], { env: { TABLEGATE_CONFIG: threeRoles } }),
    '--config over TABLEGATE_CONFIG', /'editor'.*admin, user/)

  const deleted = await cli(['user', 'delete', '--email', 'b@example.com'])
  ok(deleted, 'delete')
  assert.match(deleted.stdout, /deleted b@example\.com/)
  const remaining = JSON.parse((await cli(['user', 'list', '--json'])).stdout) as Array<{ email: string }>
  assert.deepEqual(remaining.map((u) => u.email), ['a@example.com'])
})

test('user changes from the CLI run the config\'s write hooks: the audit log records them with host as the actor', async () => {
  ok(await cli(['user', 'create', '--email', 'audited@example.com', '--password', STRONG], { config: audited }), 'create')
  ok(await cli(['user', 'set-role', '--email', 'audited@example.com', '--role', 'admin,user'], { config: audited }), 'set-role')
  ok(await cli(['user', 'ban', '--email', 'audited@example.com'], { config: audited }), 'ban')
  ok(await cli(['user', 'unban', '--email', 'audited@example.com'], { config: audited }), 'unban')
  ok(await cli(['user', 'delete', '--email', 'audited@example.com'], { config: audited }), 'delete')
  const rows = await withClient(databaseUrl, async (client) => (await client.query(`SELECT operation, user_id, before->>'role' AS before_role, after->>'role' AS after_role,
      after->>'banned' AS banned FROM tablegate_audit_log WHERE resource = 'auth.users' ORDER BY id`)).rows)
  assert.deepEqual(rows, [
    { operation: 'create', user_id: 'host', before_role: null, after_role: 'user', banned: 'false' },
    { operation: 'update', user_id: 'host', before_role: 'user', after_role: 'admin,user', banned: 'false' },
    { operation: 'update', user_id: 'host', before_role: 'admin,user', after_role: 'admin,user', banned: 'true' },
    { operation: 'update', user_id: 'host', before_role: 'admin,user', after_role: 'admin,user', banned: 'false' },
    { operation: 'delete', user_id: 'host', before_role: 'admin,user', after_role: null, banned: null },
  ])
})

test('on a Node older than 22 the CLI says so in one line and exits 1, before loading anything', async () => {
  // This Node, told it is 20: loading tablegate on a real Node 20 ends in a segmentation fault.
  const oldNode = join(dir, 'node-20.mjs')
  writeFileSync(oldNode, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.1' } })\n")
  // Spawned: the check is bin/tablegate.js's own, made before main() is loaded.
  const runs = [await spawned(['--help'], { config: null, nodeArgs: ['--import', pathToFileURL(oldNode).href] })]
  // The machine's own Node too, where it is an older one (a distribution's package often is).
  const machine = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' })
  const machineVersion = machine.status === 0 ? machine.stdout.trim().slice(1) : undefined
  if (machineVersion !== undefined && Number(machineVersion.split('.')[0]) < 22) runs.push(await spawned(['--help'], { config: null, node: '/usr/bin/node' }))
  for (const [i, run] of runs.entries()) {
    const version = i === 0 ? '20.11.1' : machineVersion!
    assert.equal(run.code, 1, run.stderr)
    assert.equal(run.stdout, '')
    assert.equal(run.stderr, `tablegate: Node ${version} is too old: tablegate runs on Node 22 or 24 (install one, e.g. nvm install 22, and run it again)\n`)
  }
})

test('bin/tablegate.js --help lists the commands on stdout and exits 0', async () => {
  const help = await spawned(['--help'], { config: null })
  ok(help, '--help')
  assert.match(help.stdout, /^Usage: tablegate \[options\] \[command\]\n/)
  for (const command of ['serve', 'migrate', 'check', 'init', 'user', 'token', 'org']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'))
})

test('every refusal exits non-zero with one line on stderr', async () => {
  const runs = await Promise.all([
    cli(['user', 'ban', '--email', 'nobody@example.com']),
    cli(['token', '--email', 'nobody@example.com']),
    cli(['user', 'create', '--email', 'c@example.com', '--password', 'short']),
    cli(['user', 'create', '--email', 'c@example.com', '--password', STRONG, '--role', 'ghost']),
    cli(['user', 'create', '--email', 'not-an-email', '--password', STRONG]),
    cli(['user', 'create', '--email', 'a@example.com', '--password', STRONG]),
    cli(['user', 'delete', '--email', 'a@example.com']),
    cli(['user', 'ban', '--email', 'a@example.com']),
    cli(['user', 'set-role', '--email', 'a@example.com', '--role', 'user']),
    cli(['user', 'list'], { config: 'nope.json' }),
    cli(['user', 'list'], { config: null, cwd: emptyDir }),
    cli(['user', 'create', '--email', 'c@example.com', '--password', STRONG, '--generate-password']),
    cli(['user', 'create', '--email', 'c@example.com']),
    cli(['token', '--email', 'a@example.com', '--ttl', 'soon']),
    cli(['user', 'list'], { config: null, env: { TABLEGATE_CONFIG: join(dir, 'missing.json') } }),
    cli(['user', 'list'], { config: join(dir, 'typo.json') }),
    // Spawned: a refusal of the real binary as a shell sees it (exit code, stderr), of a variable
    // in its real environment.
    spawned(['user', 'list'], { env: { AUTH_SECRET: 'short' } }),
  ])
  const expected: Array<[string, RegExp]> = [
    ['unknown email (ban)', /nobody@example\.com/],
    ['unknown email (token)', /nobody@example\.com/],
    ['weak password', /at least 12 characters/],
    ['role outside the list', /'ghost'.*admin, user/],
    ['invalid email', /email/],
    ['duplicate email', /already exists/],
    ['delete the last admin', /last active admin/],
    ['ban the last admin', /last active admin/],
    ['demote the last admin', /last active admin/],
    ['missing config file', /config file not found: nope\.json/],
    ['no config at all', /no config found/],
    ['both passwords', /exactly one of --password and --generate-password/],
    ['neither password', /exactly one of --password and --generate-password/],
    ['ttl not a number', /ttl/],
    ['missing TABLEGATE_CONFIG file', /config file not found: .*missing\.json/],
    ['invalid config', /config\.rols: unknown key \(did you mean 'roles'\?\)/],
    ['short AUTH_SECRET', /AUTH_SECRET/],
  ]
  runs.forEach((run, i) => { refusal(run, expected[i]![0], expected[i]![1]) })

  const list = JSON.parse((await cli(['user', 'list', '--json'])).stdout) as Array<{ email: string, role: string, banned: boolean }>
  assert.deepEqual(list.map((u) => [u.email, u.role, u.banned]), [['a@example.com', 'admin', false]])
})

test('an in-process run has the environment and working directory it is given, and leaves this process\'s as they were', async () => {
  const before = { env: { ...process.env }, cwd: process.cwd() }
  const run = await cli(['user', 'list'], { config: null, cwd: emptyDir, env: { TABLEGATE_CONFIG: threeRoles } })
  ok(run, 'list with TABLEGATE_CONFIG')
  assert.deepEqual({ env: { ...process.env }, cwd: process.cwd() }, before)
})

test('migrate applies the config\'s migrations once each, and says so', async () => {
  const migrations = join(dir, 'migrations')
  mkdirSync(migrations)
  writeFileSync(join(migrations, '001_widgets.sql'), 'CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL);')
  const withMigrations = join(dir, 'with-migrations.json')
  writeFileSync(withMigrations, JSON.stringify({ roles: ['admin', 'user'], migrations }))
  const first = await cli(['migrate', '--config', withMigrations], { config: null })
  ok(first, 'migrate')
  assert.equal(first.stdout.trim(), 'applied 001_widgets.sql')
  const again = await cli(['migrate', '--config', withMigrations], { config: null })
  ok(again, 'migrate again')
  assert.equal(again.stdout.trim(), 'database is up to date')
})

test('a migration that fails, or a migrations directory that is not there, is named in the one line', async () => {
  const migrations = join(dir, 'broken-migrations')
  mkdirSync(migrations)
  writeFileSync(join(migrations, '001_good.sql'), 'CREATE TABLE sprockets (id serial PRIMARY KEY);')
  writeFileSync(join(migrations, '002_typo.sql'), 'CREATE TABLE cogs (id serial PRIMARY KEY, name txt);')
  const broken = join(dir, 'broken-migrations.json')
  writeFileSync(broken, JSON.stringify({ roles: ['admin', 'user'], migrations }))
  const failed = await cli(['migrate', '--config', broken], { config: null })
  assert.equal(failed.code, 1)
  assert.equal(failed.stderr.trim(), 'tablegate: migration 002_typo.sql failed: type "txt" does not exist (no migration of this run was applied)')
  const missing = join(dir, 'missing-migrations.json')
  writeFileSync(missing, JSON.stringify({ roles: ['admin', 'user'], migrations: join(dir, 'migrationz') }))
  const absent = await cli(['migrate', '--config', missing], { config: null })
  assert.equal(absent.code, 1)
  assert.match(absent.stderr, /^tablegate: config\.migrations: cannot read the directory .*migrationz \(ENOENT\)$/m)
})

test('a DATABASE_URL that does not lead to a database says so in one line, with the likely fix and no password', async () => {
  const wrongPassword = new URL(databaseUrl)
  wrongPassword.password = 'not-the-password'
  const cases: Array<[string, RegExp]> = [
    [wrongPassword.href, /^tablegate: cannot connect to DATABASE_URL \(postgres:\/\/[^:@]+@[^)]*\): .*\(the user name or the password is wrong\)$/],
    ['postgres://app:secret-word@127.0.0.1:1/app', /^tablegate: cannot connect to DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:1\/app\): connect ECONNREFUSED 127\.0\.0\.1:1 \(nothing accepts connections there: is PostgreSQL running on that host and port\?\)$/],
    ['notaurl', /^tablegate: DATABASE_URL is not a PostgreSQL URL such as postgres:\/\/user:password@host:5432\/database$/],
  ]
  for (const [url, says] of cases) {
    const run = await cli(['check'], { env: { DATABASE_URL: url } })
    assert.equal(refusal(run, url, says).includes('secret-word'), false)
  }
})

test('check runs the pending migrations as a start would, and rolls them back: a migration\'s table checks, a broken one is named', async () => {
  const migrations = join(dir, 'check-migrations')
  mkdirSync(migrations)
  writeFileSync(join(migrations, '001_pulleys.sql'), 'CREATE TABLE pulleys (id serial PRIMARY KEY, size integer NOT NULL);')
  const pulleys = { fields: { id: { type: 'integer', readOnly: true }, size: { type: 'integer', required: true } } }
  const pending = join(dir, 'check-migrations.json')
  writeFileSync(pending, JSON.stringify({ roles: ['admin', 'user'], migrations, resources: { pulleys } }))
  const checked = await cli(['check', '--config', pending], { config: null })
  ok(checked, 'check')
  assert.equal(checked.stdout.trim(), 'the config and the database agree (1 resource)')
  // Nothing of it stays: the migration is still to be applied.
  assert.equal(await withClient(databaseUrl, async (c) => (await c.query("SELECT to_regclass('pulleys') AS t")).rows[0].t), null)
  writeFileSync(join(migrations, '002_broken.sql'), 'ALTER TABLE pulleys ADD COLUMN grip txt;')
  refusal(await cli(['check', '--config', pending], { config: null }), 'check', /^tablegate: migration 002_broken\.sql failed: type "txt" does not exist/)
})

test('check warns of a tenant resource whose unique key a caller fills in but leaves out the tenant column', async () => {
  await runSql(databaseUrl, 'CREATE TABLE bays (region text NOT NULL, number integer NOT NULL, tenant_id text NOT NULL, PRIMARY KEY (region, number))')
  const bays = { key: ['region', 'number'], tenant: 'tenant_id', fields: { region: { type: 'string', required: true }, number: { type: 'integer', required: true } } }
  const file = join(dir, 'bays.json')
  writeFileSync(file, JSON.stringify({ roles: ['admin', 'user'], resources: { bays } }))
  const checked = await cli(['check', '--config', file], { config: null })
  assert.equal(checked.code, 0, checked.stderr)
  assert.equal(checked.stdout.trim(), 'the config and the database agree (1 resource)')
  assert.equal(checked.stderr, "tablegate: config.resources.bays: the unique key (number, region) leaves out the tenant column 'tenant_id': a create that collides with another tenant's row answers 409, which tells the caller that this key exists there. Make the key or index (tenant_id, number, region).\n")
})

test('check warns of a bundle\'s capability that an explicit rule replaces, and of bundles defaultAccess replaces', async () => {
  await runSql(databaseUrl, 'CREATE TABLE ledgers (id serial PRIMARY KEY, owner_id text)')
  const ledgers = { owner: 'owner_id', fields: { id: { type: 'integer', readOnly: true }, owner_id: { type: 'string' } }, access: { read: true, delete: ['admin'] } }
  const file = join(dir, 'ledgers.json')
  writeFileSync(file, JSON.stringify({ roles: { clerk: ['ledgers.read.own', 'ledgers.create', 'ledgers.delete'], keeper: ['ledgers.*'] }, resources: { ledgers } }))
  const checked = await cli(['check', '--config', file], { config: null })
  assert.equal(checked.code, 0, checked.stderr)
  assert.equal(checked.stdout.trim(), 'the config and the database agree (1 resource)')
  // ledgers.* still grants create and update: only entries that grant nothing are named.
  assert.equal(checked.stderr,
    "tablegate: config.roles.clerk[0]: 'ledgers.read.own' grants nothing: the rule config.resources.ledgers.access.read decides instead (an explicit rule replaces the capabilities for its operation). Remove the entry, or the rule.\n" +
    "tablegate: config.roles.clerk[2]: 'ledgers.delete' grants nothing: the rule config.resources.ledgers.access.delete decides instead (an explicit rule replaces the capabilities for its operation). Remove the entry, or the rule.\n")
  writeFileSync(file, JSON.stringify({ roles: { clerk: ['ledgers.read'] }, defaultAccess: 'deny', resources: { ledgers } }))
  const denied = await cli(['check', '--config', file], { config: null })
  assert.equal(denied.code, 0, denied.stderr)
  assert.equal(denied.stderr, "tablegate: config.defaultAccess: 'deny' decides every operation without a rule, so the capabilities of config.roles grant nothing: leave defaultAccess out, or give the rules it would decide\n")
})

test('check refuses a relation\'s mistake as a start does, and warns of a foreign key without an index', async () => {
  await runSql(databaseUrl, 'CREATE TABLE crates (id serial PRIMARY KEY); CREATE TABLE bottles (id serial PRIMARY KEY, crate_id integer)')
  const id = { type: 'integer', readOnly: true }
  const bottles = { fields: { id, crate_id: { type: 'integer', references: 'crates' } } }
  const file = join(dir, 'crates.json')
  writeFileSync(file, JSON.stringify({ roles: ['admin', 'user'], resources: { crates: { fields: { id }, relations: { bottles: { resource: 'bottles', by: 'crateid' } } }, bottles } }))
  refusal(await cli(['check', '--config', file], { config: null }), 'check',
    /^tablegate: config\.resources\.crates\.relations\.bottles\.by: 'crateid' is not a field of bottles \(did you mean 'crate_id'\?\)$/)
  writeFileSync(file, JSON.stringify({ roles: ['admin', 'user'], resources: { crates: { fields: { id }, relations: { bottles: { resource: 'bottles', by: 'crate_id' } } }, bottles } }))
  const checked = await cli(['check', '--config', file], { config: null })
  assert.equal(checked.code, 0, checked.stderr)
  assert.equal(checked.stdout.trim(), 'the config and the database agree (2 resources)')
  assert.equal(checked.stderr, 'tablegate: config.resources.crates.relations.bottles: following the relation reads table bottles by column crate_id, and no index starts with it, so each such read scans the table. Create one: CREATE INDEX ON "bottles" ("crate_id")\n')
})

test('check finds the example shop (npm start\'s config) agreeing with its migrations, relations and their indexes included', async () => {
  const shop = await freshDatabase()
  // Spawned: the real binary loading a TypeScript config through tsx, as `npx tablegate check` does.
  const checked = await spawned(['check', '--config', join(root, 'tablegate.config.ts')], { config: null, env: { DATABASE_URL: shop } })
  ok(checked, 'check')
  assert.equal(checked.stdout.trim(), 'the config and the database agree (5 resources)')
})

test('migrate is safe to repeat', async () => {
  const first = await cli(['migrate'])
  ok(first, 'migrate')
  assert.match(first.stdout, /database is up to date/)
  ok(await cli(['migrate']), 'migrate again')
  ok(await cli(['token', '--email', 'a@example.com']), 'token after migrate')
})

test('check and migrate run the startup model checks against the database and exit non-zero with their messages', async () => {
  await runSql(databaseUrl, 'CREATE TABLE gadgets (id serial PRIMARY KEY, name text NOT NULL)')
  const gadgets = { fields: { id: { type: 'integer', readOnly: true }, name: { type: 'string', required: true } } }
  const good = join(dir, 'gadgets.json')
  writeFileSync(good, JSON.stringify({ roles: ['admin', 'user'], resources: { gadgets } }))
  const checked = await cli(['check', '--config', good], { config: null })
  ok(checked, 'check')
  assert.equal(checked.stdout.trim(), 'the config and the database agree (1 resource)')

  const softDeleted = join(dir, 'soft-deleted.json')
  writeFileSync(softDeleted, JSON.stringify({ roles: ['admin', 'user'], resources: { gadgets: { ...gadgets, softDelete: 'deleted_at' } } }))
  const expected = /config\.resources\.gadgets\.softDelete: column 'deleted_at' does not exist in table gadgets/
  refusal(await cli(['check', '--config', softDeleted], { config: null }), 'check, missing column', expected)
  refusal(await cli(['migrate', '--config', softDeleted], { config: null }), 'migrate, missing column', expected)

  const typo = join(dir, 'capability-typo.json')
  writeFileSync(typo, JSON.stringify({ roles: { member: ['gadget.read'] }, resources: { gadgets } }))
  refusal(await cli(['check', '--config', typo], { config: null }), 'check, capability typo',
    /config\.roles\.member\[0\]: 'gadget\.read' names resource 'gadget', which does not exist \(did you mean 'gadgets'\?\)/)
})

test('serve takes PORT; a token minted beside a running server fits it, though only the server was given AUTH_URL; a mismatch says which claim', async () => {
  const served = join(dir, 'served.json')
  writeFileSync(served, JSON.stringify({ roles: ['admin', 'user'], dataDir: join(dir, 'served-data') }))
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: SECRET, AUTH_URL: publicUrl, TABLEGATE_CONFIG: served, PORT: String(port) }
  delete env.NODE_OPTIONS
  // Spawned: serve runs until a signal stops it, with handlers of the process's own and the power
  // to end it, and logs to the process's stdout.
  const server = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  after(() => { server.kill('SIGTERM') })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; if (out.includes('tablegate is serving')) resolve() })
    server.on('close', (code) => { reject(new Error(`serve exited ${code}: ${out}`)) })
  })
  const minted = await cli(['token', '--email', 'a@example.com', '--json', '--config', served], { config: null })
  ok(minted, 'token beside the server')
  const { token } = JSON.parse(minted.stdout) as { token: string }
  assert.deepEqual([decodeJwt(token).iss, decodeJwt(token).aud], [publicUrl, publicUrl])
  const accepted = await fetch(`${publicUrl}/api/v1/nothing`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(accepted.status, 404, 'authenticated: the unknown route answers 404, not 401')

  // A token for another URL (here the default one) is refused with the claim that failed.
  const elsewhere = JSON.parse((await cli(['token', '--email', 'a@example.com', '--json'])).stdout) as { token: string }
  const refused = await fetch(`${publicUrl}/api/v1/nothing`, { headers: { authorization: `Bearer ${elsewhere.token}` } })
  assert.equal(refused.status, 401)
  const problem = await refused.json() as { detail: string }
  assert.match(problem.detail, /its iss \(issuer\) claim is not the issuer this server expects/)
  assert.ok(!problem.detail.includes('localhost') && !problem.detail.includes(publicUrl), problem.detail)

  // serve turns the console on at / when the config does not mention it (docs/console.md).
  const consolePage = await fetch(`${publicUrl}/`)
  assert.equal(consolePage.status, 200)
  assert.equal(consolePage.headers.get('content-type'), 'text/html; charset=utf-8')
  assert.match(await consolePage.text(), /<meta name="tablegate-api-root" content="\/api">/)
})
