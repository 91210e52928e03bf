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

async function startupError (resources: Config['resources'], config: Config = {}): Promise<string> {
  try {
    const app = await createServer({ databaseUrl, authSecret: TEST_SECRET, resources, ...config })
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

test('a table of the login store is never a resource, in the store\'s own schema or any other', async () => {
  const why = "is never a resource: it is a table of tablegate's own login store, which holds password hashes, session tokens and signing keys and is kept by the login routes and the CLI under rules of their own"
  const account = { id: { type: 'string' }, password: { type: 'string' } } as const
  assert.equal(await startupError({ accounts: { table: 'auth_account', fields: account } }), `config.resources.accounts: table 'auth_account' ${why}`)
  assert.equal(await startupError({ keys: { table: 'logins.auth_key', fields: { id: { type: 'string' } } } }, { authSchema: 'logins' }), `config.resources.keys: table 'logins.auth_key' ${why}`)
  assert.equal(await startupError({ auth_session: { fields: { id: { type: 'string' } } } }), `config.resources.auth_session: table 'auth_session' ${why}`)
  assert.equal(await startupError({ members: { table: 'public.auth_member', fields: { id: { type: 'string' } } } }, { authSchema: 'logins' }), `config.resources.members: table 'public.auth_member' ${why}`)
})

test('every name the access config gives is checked at startup, with its path and the nearest name', async () => {
  const fields = { id, name }
  const roles = { auditor: ['things.read'] }
  const cases: Array<[Config['resources'], Config, RegExp]> = [
    [{ things: { fields, access: { fields: { nmae: { read: ['admin'] } } } } }, {},
      /config\.resources\.things\.access\.fields\.nmae: 'nmae' is not a field of things \(did you mean 'name'\?\)/],
    [{ things: { fields, access: { read: ['admin', 'auditr'] } } }, { roles: ['auditor'] },
      /config\.resources\.things\.access\.read: role 'auditr' is not in the role list \(admin, auditor\) \(did you mean 'auditor'\?\)/],
    [{ things: { fields, access: { fields: { name: { write: ['auditr'] } } } } }, { roles: ['auditor'] },
      /config\.resources\.things\.access\.fields\.name\.write: role 'auditr' is not in the role list .*\(did you mean 'auditor'\?\)/],
    [{ things: { fields, access: { update: { filter: { nmae: 'x' } } } } }, {},
      /config\.resources\.things\.access\.update\.filter: access filter of things names 'nmae', which is not a field \(did you mean 'name'\?\)/],
    [{ things: { fields, access: { delete: { filter: 'nmae = "x"' } } } }, {},
      /config\.resources\.things\.access\.delete\.filter: access filter of things 'nmae = "x"': There is no field 'nmae' to filter on\. Did you mean 'name'\?/],
    [{ things: { fields } }, { roles: { member: ['thing.*.own'] } },
      /config\.roles\.member\[0\]: 'thing\.\*\.own' names resource 'thing', which does not exist \(did you mean 'things'\?\)/],
    [{ things: { fields } }, { roles: { member: ['*.read', 'things.updte'] } },
      /config\.roles\.member\[1\]: 'things\.updte' names operation 'updte', which does not exist \(read, create, update, delete, undelete, export or '\*'\) \(did you mean 'update'\?\)/],
    [{ things: { fields } }, { roles: { member: ['things.read.onw'] } },
      /config\.roles\.member\[0\]: 'things\.read\.onw' has scope 'onw': the only scope is 'own' \(did you mean 'own'\?\)/],
    [{ things: { fields } }, { roles: { member: ['things.update.own'] } },
      /config\.roles\.member\[0\]: 'things\.update\.own' grants nothing: things has no owner field/],
    [{ things: { fields } }, { roles: { member: ['things'] } }, /config\.roles\.member\[0\]: 'things' is not a capability/],
    [{ things: { fields: { id, size: { type: 'integer', references: 'thing' } } } }, {},
      /config\.resources\.things\.fields\.size\.references: resource 'thing' does not exist \(did you mean 'things'\?\)/],
    [{ things: { fields: { id, name: { type: 'string', references: 'things' } } } }, {},
      /config\.resources\.things\.fields\.name\.references: name is string but the key of things \(id\) is integer/],
    [{ things: { fields } }, { rowPermissions: { except: ['thing'] } },
      /config\.rowPermissions\.except\[0\]: resource 'thing' does not exist \(did you mean 'things'\?\)/],
  ]
  for (const [resources, config, expected] of cases) assert.match(await startupError(resources, config), expected)
  assert.equal(await startupError({ things: { fields, owner: 'name', access: { read: ['auditor'], fields: { name: { read: true } } } } },
    { roles: { ...roles, member: ['*.read', 'things.update.own', 'things.*'] }, rowPermissions: { except: ['things'] } }), 'started')
})

test('every mistake is named at once, not one per start', async () => {
  const message = await startupError({ things: { fields: { id, name }, access: { read: ['auditr'], fields: { nmae: {} } } } }, { roles: ['auditor'] })
  assert.match(message, /access\.read: role 'auditr'.*; config\.resources\.things\.access\.fields\.nmae:/)
  const database = await startupError({ things: { fields: { id, colour: name } }, items: { table: 'missing', fields: { id } } })
  assert.match(database, /fields\.colour: column 'colour' does not exist in table things; config\.resources\.items: table 'missing' does not exist/)
})
