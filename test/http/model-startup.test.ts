import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { createServer } from '../../lib/server.js'
import { TEST_SECRET } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL, size integer, deleted_at timestamptz, flag text, version integer NOT NULL DEFAULT 1);
  CREATE SCHEMA inventory;
  CREATE TABLE inventory.items (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), label text);
`)

async function startupError (resources: Config['resources']): Promise<string> {
  try {
    const app = await createServer({ databaseUrl, authSecret: TEST_SECRET, resources })
    await app.close()
  } catch (err) {
    return (err as Error).message
  }
  return 'started'
}

const name = { type: 'string' } as const
const id = { type: 'integer', readOnly: true } as const

test('each startup error names what is wrong', async () => {
  const cases: Array<[Config['resources'], RegExp]> = [
    [{ things: { table: 'missing', fields: { id } } }, /config\.resources\.things: table 'missing' does not exist/],
    [{ things: { fields: { id, colour: name } } }, /config\.resources\.things\.fields\.colour: column 'colour' does not exist in table things/],
    [{ things: { fields: { id, etag: name } } }, /config\.resources\.things\.fields\.etag: a field cannot be named 'etag'/],
    [{ things: { fields: { id, permissions: name } } }, /config\.resources\.things\.fields\.permissions: a field cannot be named 'permissions'/],
    [{ things: { key: 'nope', fields: { id } } }, /config\.resources\.things\.key: 'nope' is not a field/],
    [{ things: { owner: 'owner_id', fields: { id } } }, /config\.resources\.things\.owner: 'owner_id' is not a field/],
    [{ things: { softDelete: 'removed_at', fields: { id } } }, /config\.resources\.things\.softDelete: column 'removed_at' does not exist/],
    [{ things: { softDelete: 'flag', fields: { id } } }, /config\.resources\.things\.softDelete: column 'flag' must be a nullable timestamptz/],
    [{ things: { tenant: 'org_id', fields: { id } } }, /config\.resources\.things\.tenant: column 'org_id' does not exist/],
    [{ things: { version: 'rev', fields: { id } } }, /config\.resources\.things\.version: column 'rev' does not exist/],
    [{ things: { version: 'flag', fields: { id } } }, /config\.resources\.things\.version: column 'flag' must be an integer or a timestamptz/],
    [{ things: { fields: { id, size: { type: 'date' } } } }, /config\.resources\.things\.fields\.size: type 'date' does not fit column 'size' of type int4/],
    [{ things: { fields: { id, name: { type: 'text' as never } } } }, /config\.resources\.things\.fields\.name\.type/],
    [{ things: { table: 'a.b.c', fields: { id } } }, /config\.resources\.things\.table/],
  ]
  for (const [resources, expected] of cases) assert.match(await startupError(resources), expected)
})

test('schema-qualified tables, managed columns left out of fields, and valid models start', async () => {
  assert.equal(await startupError({
    things: { softDelete: 'deleted_at', version: 'version', fields: { id, name } },
    items: { table: 'inventory.items', fields: { id: { type: 'uuid', readOnly: true, dbDefault: true }, label: name } },
  }), 'started')
})
