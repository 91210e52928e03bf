// `tablegate org create --id` and `tablegate org import` (docs/organizations.md, "Moving an existing
// multi-tenant database"): the command line, run in this process (test/helpers/cli.ts), against a
// fresh database. The rules of ids and entries are tested through the library
// (organizations-import.test.ts) and the file's reading by unit (test/unit/csv.test.ts); here, what
// the commands print, their exit codes, and that a refused import imports nothing.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp, createUser, usersOf } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { cliRunnerInProcess, refusal, stdoutOf } from '../helpers/cli.js'

const SECRET = 'org-import-cli-secret-0123456789-abcdefghijk'
const databaseUrl = await freshDatabase()
const dir = mkdtempSync(join(tmpdir(), 'tablegate-org-import-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })
const config = join(dir, 'tablegate.config.json')
writeFileSync(config, JSON.stringify({ roles: ['admin', 'user'], organizations: {} }))
const cli = cliRunnerInProcess({ databaseUrl, secret: SECRET, config })

const app = await buildApp({ databaseUrl, authSecret: SECRET, roles: ['admin', 'user'], organizations: {} })
for (const email of ['ann@example.com', 'bob@example.com']) await createUser(app, email, 'user')

const run = stdoutOf(cli)

/** A file of `dir` holding `text`. */
function file (name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** Every organization as stored, with its members. */
async function stored (): Promise<string[]> {
  const { rows } = await usersOf(app).pool.query(`SELECT o.id, o.name, o.slug, string_agg(u.email || ':' || m.role, ' ' ORDER BY u.email) AS members
    FROM auth_organization o JOIN auth_member m ON m.organization_id = o.id JOIN auth_user u ON u.id = m.user_id GROUP BY o.id ORDER BY o.id`)
  return rows.map((r) => `${r.id as string}|${r.name as string}|${r.slug as string}|${r.members as string}`)
}

test('org create --id keeps the id; a taken or bad id is one line on stderr and exit 1', async () => {
  assert.equal(await run(['org', 'create', '--id', '42', '--name', 'Acme', '--slug', 'acme', '--owner', 'ann@example.com']),
    'created organization acme (Acme) with id 42 owned by ann@example.com')
  assert.match((await run(['org', 'list'])).split('\n')[1]!, /^acme\s+Acme\s+1\s+\S+\s+42$/)
  for (const [id, message] of [
    ['42', /^tablegate: the id 42 is taken by another organization$/],
    ['', /^tablegate: id must not be empty$/],
    ['x'.repeat(200), /^tablegate: id must have at most 128 characters, not 200$/],
    ['4\t2', /^tablegate: id must not contain control characters$/],
    ['42 ', /^tablegate: id must not start or end with whitespace$/],
  ] as const) {
    const result = await cli(['org', 'create', '--id', id, '--name', 'Other', '--slug', 'other', '--owner', 'bob@example.com'])
    refusal(result, JSON.stringify(id), message)
    assert.equal(result.code, 1)
  }
  assert.deepEqual(await stored(), ['42|Acme|acme|ann@example.com:owner'])
})

test('org import: quoted fields, an organization already there unchanged; a second run changes nothing and says so', async () => {
  const path = file('tenants.csv', [
    'id,name,slug,owner',
    '7,"Globex, ""The"" Corporation",globex,bob@example.com',
    '42,Acme,acme,ann@example.com',
    '"8","Initech, Europe",initech-eu,Bob@Example.com',
    '',
  ].join('\r\n'))
  assert.equal(await run(['org', 'import', path]), '2 created, 1 unchanged')
  const imported = await stored()
  assert.deepEqual(imported, [
    '42|Acme|acme|ann@example.com:owner',
    '7|Globex, "The" Corporation|globex|bob@example.com:owner',
    '8|Initech, Europe|initech-eu|bob@example.com:owner',
  ])
  assert.equal(await run(['org', 'import', path]), '0 created, 3 unchanged')
  assert.deepEqual(await stored(), imported)
})

test('a refused import names the line and the column, exits 1, and imports none of the file', async () => {
  const before = await stored()
  const header = 'id,name,slug,owner'
  for (const [name, text, message] of [
    // An empty line is no row, but it counts as a line.
    ['unknown-owner.csv', `${header}\n100,Hooli,hooli,ann@example.com\n\n"101","Umbrella, Inc.",umbrella,nobody@example.com\n`,
      /^tablegate: line 4, owner: no user with email nobody@example\.com$/],
    ['duplicate-slug.csv', `${header}\n100,Hooli,hooli,ann@example.com\n101,Hooli Two,hooli,bob@example.com\n`,
      /^tablegate: line 3, slug: the slug hooli is also on line 2$/],
    ['differs.csv', `${header}\n100,Hooli,hooli,ann@example.com\n42,Acme Inc,acme,ann@example.com\n`,
      /^tablegate: line 3, name: organization 42 exists, and its name is 'Acme': an import changes no organization that exists$/],
    ['bad-header.csv', 'id,name,slug,email\n100,Hooli,hooli,ann@example.com\n',
      /^tablegate: line 1, column 4: 'email' is not a column of an import: the header is id,name,slug,owner \(in any order\)$/],
    ['bad-quote.csv', `${header}\n100,Hooli,hooli,ann@example.com\n101,The "Best",best,ann@example.com\n`,
      /^tablegate: line 3, name: a quote inside a field that does not start with one \(quote the whole field, and write the quote twice\)$/],
  ] as const) {
    const result = await cli(['org', 'import', file(name, text)])
    refusal(result, name, message)
    assert.equal(result.code, 1)
  }
  const missing = await cli(['org', 'import', join(dir, 'missing.csv')])
  refusal(missing, 'missing file', /^tablegate: cannot read .*missing\.csv: no such file$/)
  assert.deepEqual(await stored(), before)
})
