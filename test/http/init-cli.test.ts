// `tablegate init` as a user runs it, in a project's directory (the command line run in this
// process, test/helpers/cli.ts): the file it writes, the summary it prints, its refusal to
// overwrite, and `tablegate check` accepting what it wrote.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshDatabase, runSql } from '../helpers/db.js'
import { cliRunnerInProcess, root } from '../helpers/cli.js'
import { INIT_SCHEMA } from '../fixtures/init.js'
import { DRIFT_CONFIG, DRIFT_LINES, DRIFT_SCHEMA } from '../fixtures/init-drift.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, INIT_SCHEMA)
// Inside the package, so the written file's `import ... from 'tablegate'` resolves to this build.
const dir = mkdtempSync(join(root, '.out-init-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const cli = cliRunnerInProcess({ databaseUrl, secret: 'init-cli-secret-0123456789-abcdef', cwd: dir })

test('init writes the config and prints what it served, left out and found; check accepts the file', async () => {
  const run = await cli(['init'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.stderr, '')
  const lines = run.stdout.trimEnd().split('\n')
  assert.equal(lines[0], '10 tables served: customers, employees, measurements, order_lines, orders, product_tags, products, regions, shipments, tags')
  assert.ok(lines.includes('left out: logbook: no primary key: a record is named by its key (ALTER TABLE ... ADD PRIMARY KEY)'), run.stdout)
  assert.ok(lines.includes('left out: measurements_2025: a partition of measurements: served through it'), run.stdout)
  assert.ok(lines.includes('left out: customers.photo: binary data, which no field type holds'), run.stdout)
  assert.ok(lines.some((l) => l === '6 enums found: customers.status (active, blocked), customers.tier (gold, silver), customers.mood (sad, ok, happy), customers.calm (ok, happy), customers.never (sad, ok, happy), products.priority (1, 2, 3)'), run.stdout)
  assert.ok(lines.some((l) => l.startsWith('12 relations found: customers.orders → orders, employees.manager → employees')), run.stdout)
  assert.equal(lines.at(-1), 'wrote tablegate.config.ts: review its TODOs, then `tablegate check` and `tablegate serve`')
  const written = readFileSync(join(dir, 'tablegate.config.ts'), 'utf8')
  const check = await cli(['check'])
  assert.equal(check.code, 0, check.stderr)
  assert.equal(check.stdout, 'the config and the database agree (10 resources)\n')
  // The columns init left out are drift: served by no field, one line each; and a column whose enum
  // type and CHECK allow no value in common (init's comment says so too) refuses every value of its enum.
  // (The other lines are the start's warnings of relations followed without an index.)
  assert.deepEqual(check.stderr.split('\n').filter((l) => l.includes(' drift: ')), [
    "tablegate: drift: config.resources.customers.fields.never.enum: column 'never' of table customers refuses 'sad', 'ok', 'happy' (check customers_never_check)",
    "tablegate: drift: config.resources.customers: column 'search' (tsvector) of table customers is served by no field",
    "tablegate: drift: config.resources.customers: column 'photo' (bytea) of table customers is served by no field",
    "tablegate: drift: config.resources.customers: column 'legacy_at' (timestamp without time zone) of table customers is served by no field",
    "tablegate: drift: config.resources.customers: column 'labels' (text[]) of table customers is served by no field",
  ])
  assert.match(check.stderr, /tablegate: config\.resources\.customers\.relations\.orders, config\.resources\.orders\.relations\.customer: following the relation reads table orders by column customer_id, and no index starts with it/)

  const again = await cli(['init'])
  assert.equal(again.code, 1)
  assert.equal(again.stdout, '')
  assert.equal(again.stderr, 'tablegate: tablegate.config.ts exists: pass --force to overwrite it\n')
  const forced = await cli(['init', '--force'])
  assert.equal(forced.code, 0, forced.stderr)
  assert.equal(readFileSync(join(dir, 'tablegate.config.ts'), 'utf8'), written, 'a rerun writes the same bytes')
})

test('the written config typechecks with tsc against the package\'s own types; a wrong option in it does not', async () => {
  // 'tablegate' resolves to this package itself (dir is inside it), through its exports: the
  // declarations it publishes. A copy with a mistyped field type shows the check is not vacuous.
  const written = readFileSync(join(dir, 'tablegate.config.ts'), 'utf8')
  writeFileSync(join(dir, 'broken.config.ts'), written.replace("name: { type: 'string'", "name: { type: 'strnig'"))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true,
      skipLibCheck: true, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['tablegate.config.ts', 'broken.config.ts'],
  }))
  const tsc = spawn(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  tsc.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  tsc.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  assert.notEqual(await new Promise((resolve) => { tsc.on('close', resolve) }), 0, output)
  const errors = output.trimEnd().split('\n').filter((l) => / error TS\d+/.test(l))
  assert.ok(errors.length > 0 && errors.every((l) => l.startsWith('broken.config.ts(')), output)
  assert.match(output, /'"strnig"' is not assignable/)
})

test('check reports drift both ways, one line each, and still refuses what a start refuses', async () => {
  const run = await cli(['init', '--tables', 'orders', '--out', 'orders.config.ts'])
  assert.equal(run.code, 0, run.stderr)
  await runSql(databaseUrl, 'ALTER TABLE orders DROP COLUMN placed_on, ALTER COLUMN owner_id TYPE integer USING NULL, ADD COLUMN note varchar(20)')
  const check = await cli(['check', '--config', 'orders.config.ts'])
  assert.equal(check.code, 1)
  assert.equal(check.stdout, '')
  const lines = check.stderr.trimEnd().split('\n')
  assert.deepEqual(lines.slice(0, 3), [
    "tablegate: drift: config.resources.orders.fields.owner_id: column 'owner_id' of table orders is integer now, which a string field does not fit",
    "tablegate: drift: config.resources.orders.fields.placed_on: column 'placed_on' is gone from table orders",
    "tablegate: drift: config.resources.orders: column 'note' (character varying(20)) of table orders is served by no field",
  ])
  assert.match(lines[3]!, /^tablegate: the config does not match the database: config\.resources\.orders\.fields\.owner_id: type 'string' does not fit column 'owner_id' of type int4$/)
  assert.equal(lines.length, 4)
})

test('--tables, --out and --schema', async () => {
  const run = await cli(['init', '--tables', 'orders,customers', '--out', 'two.config.ts'])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^2 tables served: customers, orders\n/)
  assert.match(readFileSync(join(dir, 'two.config.ts'), 'utf8'), /customer_id: \{ type: 'bigint', required: true, references: 'customers' \}/)
  const missing = await cli(['init', '--tables', 'nope', '--out', 'none.config.ts'])
  assert.equal(missing.stderr, 'tablegate: not in schema public: nope\n')
  const schema = await cli(['init', '--schema', 'elsewhere', '--out', 'none.config.ts'])
  assert.equal(schema.stderr, 'tablegate: schema elsewhere has no tables or views\n')
})

test('init of a schema whose name needs quotes writes tables check accepts; check names a resource whose table it cannot read', async () => {
  await runSql(databaseUrl, 'CREATE SCHEMA "Odd Schema"; CREATE TABLE "Odd Schema".t2 (id integer PRIMARY KEY); CREATE TABLE "Odd Schema"."Mixed-Case" (id integer PRIMARY KEY)')
  const run = await cli(['init', '--schema', 'Odd Schema', '--out', 'odd.config.ts'])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^2 tables served: Mixed-Case, t2\n/)
  const written = readFileSync(join(dir, 'odd.config.ts'), 'utf8')
  assert.match(written, /\n {4}t2: \{\n(?: {6}\/\/.*\n)* {6}table: '"Odd Schema"\.t2',\n/)
  assert.match(written, /\n {4}'Mixed-Case': \{\n(?: {6}\/\/.*\n)* {6}table: '"Odd Schema"\."Mixed-Case"',\n/)
  const check = await cli(['check', '--config', 'odd.config.ts'])
  assert.equal(check.code, 0, check.stderr)
  assert.equal(check.stdout, 'the config and the database agree (2 resources)\n')
  // The names written bare, as init wrote them before: refused by name, saying how to write them.
  writeFileSync(join(dir, 'bare.config.ts'), written.replace(`'"Odd Schema".t2'`, "'Odd Schema.t2'"))
  const bare = await cli(['check', '--config', 'bare.config.ts'])
  assert.equal(bare.code, 1)
  assert.equal(bare.stdout, '')
  assert.equal(bare.stderr, `tablegate: config.resources.t2.table: 'Odd Schema.t2' is not a table name: a name that holds spaces, dots or quotes, or keeps capitals, is written in double quotes, as in SQL: '"Odd Schema".t2'\n`)
})

test('check refuses a resource over a table of the login store, naming it and why', async () => {
  writeFileSync(join(dir, 'store.config.mjs'), `export default ${JSON.stringify({ resources: { accounts: { table: 'auth_account', fields: { id: { type: 'string' } } } } })}\n`)
  const check = await cli(['check', '--config', 'store.config.mjs'])
  assert.equal(check.code, 1)
  assert.equal(check.stdout, '')
  assert.equal(check.stderr, "tablegate: config.resources.accounts: table 'auth_account' is never a resource: it is a table of tablegate's own login store, which holds password hashes, session tokens and signing keys and is kept by the login routes and the CLI under rules of their own\n")
})

test('check prints a line for each constraint that contradicts a field option, and passes, as a start would', async () => {
  await runSql(databaseUrl, DRIFT_SCHEMA)
  writeFileSync(join(dir, 'things.config.mjs'), `export default ${JSON.stringify(DRIFT_CONFIG)}\n`)
  const check = await cli(['check', '--config', 'things.config.mjs'])
  assert.equal(check.code, 0, check.stderr)
  assert.equal(check.stdout, 'the config and the database agree (1 resource)\n')
  assert.deepEqual(check.stderr.trimEnd().split('\n'), DRIFT_LINES.map((line) => `tablegate: ${line}`))
})
