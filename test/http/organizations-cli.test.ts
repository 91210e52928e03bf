// `tablegate org ...` (docs/organizations.md, "The CLI"): the command line, run in this process
// (test/helpers/cli.ts), against a fresh database. Each run starts the app, so these are few: the
// rules themselves are tested through the library (organizations.test.ts); here, that each command
// does its change, runs the config's write hooks, and that each refusal is one line on stderr with exit 1.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp, createUser, usersOf } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { cliRunnerInProcess, refusal, root, stdoutOf } from '../helpers/cli.js'

const SECRET = 'org-cli-test-secret-0123456789-abcdefghijk'
const databaseUrl = await freshDatabase()
const dir = mkdtempSync(join(tmpdir(), 'tablegate-org-cli-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })
const config = join(dir, 'audited.mjs')
writeFileSync(config, `import { auditLog } from '${pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href}'
export default { roles: ['admin', 'user'], organizations: {}, plugins: [auditLog] }
`)
const withoutOrganizations = join(dir, 'plain.json')
writeFileSync(withoutOrganizations, JSON.stringify({ roles: ['admin', 'user'] }))
const cli = cliRunnerInProcess({ databaseUrl, secret: SECRET, config })

const app = await buildApp({ databaseUrl, authSecret: SECRET, roles: ['admin', 'user'], organizations: {} })
for (const email of ['ann@example.com', 'bob@example.com']) await createUser(app, email, 'user')

const run = stdoutOf(cli)

test('org create, add-member, set-role, list, list --json and remove-member; each change runs the config\'s hooks with host as the actor', async () => {
  assert.equal(await run(['org', 'create', '--name', 'Acme Inc', '--slug', 'acme', '--owner', 'Ann@Example.com']), 'created organization acme (Acme Inc) owned by ann@example.com')
  assert.equal(await run(['org', 'add-member', '--org', 'acme', '--email', 'bob@example.com', '--role', 'admin']), 'added bob@example.com to acme as admin')
  assert.equal(await run(['org', 'set-role', '--org', 'acme', '--email', 'bob@example.com', '--role', 'member']), 'bob@example.com now has role member in acme')
  const table = (await run(['org', 'list'])).split('\n')
  assert.match(table[0]!, /^SLUG\s+NAME\s+MEMBERS\s+CREATED\s+ID$/)
  assert.match(table[1]!, /^acme\s+Acme Inc\s+2\s+\d{4}-\d\d-\d\dT\S+Z\s+\S+$/)
  assert.deepEqual(JSON.parse(await run(['org', 'list', '--json'])), await app.tablegate.organizations!.list())
  assert.equal(await run(['org', 'remove-member', '--org', 'acme', '--email', 'bob@example.com']), 'removed bob@example.com from acme')
  assert.deepEqual((await app.tablegate.organizations!.list()).map((o) => [o.slug, o.members]), [['acme', 1]])

  const { rows } = await usersOf(app).pool.query("SELECT resource, operation, user_id, after->>'role' AS role FROM tablegate_audit_log WHERE resource LIKE 'auth.%' AND resource <> 'auth.users' ORDER BY id")
  assert.deepEqual(rows.map((r) => [r.resource, r.operation, r.user_id, r.role]), [
    ['auth.organizations', 'create', 'host', null],
    ['auth.members', 'create', 'host', 'owner'],
    ['auth.members', 'create', 'host', 'admin'],
    ['auth.members', 'update', 'host', 'member'],
    ['auth.members', 'delete', 'host', null],
  ])
})

test('every refusal is one line on stderr and exit 1, and changes nothing', async () => {
  await app.tablegate.organizations!.create({ name: 'Kept', slug: 'kept', owner: 'ann@example.com' })
  for (const [args, message] of [
    [['org', 'create', '--name', 'Again', '--slug', 'kept', '--owner', 'bob@example.com'], /^tablegate: the slug kept is taken by another organization$/],
    [['org', 'create', '--name', 'Bad', '--slug', 'Bad Slug', '--owner', 'bob@example.com'], /^tablegate: slug must be lowercase letters, digits and dashes/],
    [['org', 'add-member', '--org', 'nope', '--email', 'bob@example.com', '--role', 'member'], /^tablegate: no organization with slug nope$/],
    [['org', 'add-member', '--org', 'kept', '--email', 'nobody@example.com', '--role', 'member'], /^tablegate: no user with email nobody@example\.com$/],
    [['org', 'add-member', '--org', 'kept', '--email', 'bob@example.com', '--role', 'user'], /^tablegate: organization role 'user' is not one of owner, admin, member$/],
    [['org', 'remove-member', '--org', 'kept', '--email', 'ann@example.com'], /^tablegate: cannot remove ann@example\.com: the last owner of kept$/],
    [['org', 'set-role', '--org', 'kept', '--email', 'ann@example.com', '--role', 'admin'], /^tablegate: cannot demote ann@example\.com: the last owner of kept$/],
  ] as const) {
    const result = await cli([...args])
    refusal(result, args.join(' '), message)
    assert.equal(result.code, 1)
  }
  const off = await cli(['org', 'list'], { config: withoutOrganizations })
  refusal(off, 'organizations off', /^tablegate: organizations are off: add `organizations: \{\}` to the config/)
  assert.equal(off.code, 1)
  const list = await app.tablegate.organizations!.list()
  assert.deepEqual(list.filter((o) => o.slug !== 'acme').map((o) => [o.slug, o.members]), [['kept', 1]])
})
