// A caller's document through real client tooling: openapi-typescript generates its types, a
// small openapi-fetch client typed by them is compiled with tsc (which must also refuse what the
// caller cannot do) and then lists, creates and updates records against the running server.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { schemaChecker } from '../helpers/openapi.js'
import { METADATA_CONFIG, METADATA_SCHEMA } from '../fixtures/metadata.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const work = join(root, `.out-clients-${randomBytes(4).toString('hex')}`)

const CLIENT = `import createClient from 'openapi-fetch'
import type { components, paths } from './schema.js'

type Order = components['schemas']['orders']
const [baseUrl, token] = process.argv.slice(2)
const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } })

const created = await client.POST('/api/v1/orders', { body: { title: 'Typed', total: '9.90' } })
if (created.data === undefined) throw new Error(JSON.stringify(created.error))
const order: Order = created.data
const updated = await client.PATCH('/api/v1/orders/{key}', {
  params: { path: { key: String(order.id) }, header: { 'If-Match': order.etag } },
  body: { status: 'open' },
})
const list = await client.GET('/api/v1/orders', { params: { query: { page_size: 10, order_by: 'title' } } })

// The clerk may not see cost, delete orders, or touch secrets: its types say so.
// @ts-expect-error cost is hidden from this caller
const cost: components['schemas']['orders.create']['cost'] = '1'
// @ts-expect-error this caller may not delete orders
await client.DELETE('/api/v1/orders/{key}', { params: { path: { key: '1' } } })
// @ts-expect-error secrets do not exist for this caller
await client.GET('/api/v1/secrets')

console.log(JSON.stringify({ created: created.data, updated: updated.data, list: list.data, cost }))
`

test('openapi-typescript types and an openapi-fetch client compiled with tsc list, create and update records', async (t) => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, METADATA_SCHEMA)
  const app = await buildApp({ databaseUrl, ...METADATA_CONFIG })
  await createUser(app, 'admin@example.com')
  await createUser(app, 'clerk@example.com', 'clerk')
  const auth = await bearer(app, 'clerk@example.com')
  const document = (await caller(app, auth)('GET', '/api/openapi.json')).body
  const address = await app.listen({ port: 0, host: '127.0.0.1' })

  mkdirSync(work, { recursive: true })
  t.after(() => { rmSync(work, { recursive: true, force: true }) })
  writeFileSync(join(work, 'openapi.json'), JSON.stringify(document))
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(work, 'client.ts'), CLIENT)
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2023', lib: ['es2023', 'dom'], module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true, types: ['node'], outDir: 'out' },
    files: ['client.ts', 'schema.d.ts'],
  }))
  await run(process.execPath, [join(root, 'test/clients/node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts'], { cwd: work })
  try {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: work })
  } catch (err) {
    assert.fail(`tsc refused the generated client: ${(err as { stdout: string }).stdout}`)
  }
  const { stdout } = await run(process.execPath, [join(work, 'out/client.js'), address, auth.authorization!.slice('Bearer '.length)])
  const result = JSON.parse(stdout)
  assert.equal(result.created.title, 'Typed')
  assert.equal(result.updated.status, 'open')
  assert.deepEqual(result.list.items.map((o: { title: string }) => o.title), ['Typed'])
  const check = schemaChecker(document)
  check('orders', result.created)
  check('orders', result.updated)
  check('orders.list', result.list)
})
