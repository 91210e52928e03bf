// Access control as callers see it: roles × operations × resources, each cell asserting the exact
// status and body. One schema covers an owner column with `.own` capabilities, a hidden field, a
// record rule, a tenant column and a resource invisible to some roles; further apps cover plain
// role lists (`defaultAccess: 'deny'`, and neither), function rules, AIP-160 text filters and a
// record check whose filter fails against the row as written.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { databasePool, freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf, type CallResult } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'
import { NO_ROUTE_DETAIL, PROBLEMS, type ProblemSlug } from '../../lib/problems.js'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
type Call = ReturnType<typeof caller>

async function userId (app: FastifyInstance, email: string): Promise<string> {
  const found = (await usersOf(app).list()).find((u) => u.email === email)
  if (found === undefined) throw new Error(`no user ${email}`)
  return found.id
}

/** The exact problem body: type, title, status, detail, instance, and the extra members given. */
function assertProblem (response: CallResult, url: string, slug: ProblemSlug, detail: string, extras: Record<string, unknown> = {}): void {
  assert.equal(response.status, PROBLEMS[slug].status, JSON.stringify(response.body))
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  assert.deepEqual(response.body, { ...extras, type: `urn:service:problem:${slug}`, title: PROBLEMS[slug].title, status: PROBLEMS[slug].status, detail, instance: url })
}

let tagCount = 0
function tag (prefix: string): string {
  tagCount += 1
  return `${prefix}-${tagCount}-${Math.random().toString(36).slice(2, 8)}`
}

const quote = (text: string): string => `"${text}"`

// ---------------------------------------------------------------------------------------------
// The main app: capability bundles, a fixed tenant.

const SCHEMA = `
CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  title text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'locked')),
  owner_id text,
  cost numeric(12, 3),
  deleted_at timestamptz
);
CREATE TABLE notes (
  id serial PRIMARY KEY,
  body text NOT NULL,
  internal text,
  tenant_id text NOT NULL
);
CREATE TABLE secrets (
  id serial PRIMARY KEY,
  label text NOT NULL,
  value text,
  deleted_at timestamptz,
  version integer NOT NULL DEFAULT 1
);
`

const RESOURCES: NonNullable<Config['resources']> = {
  // An owner column for `.own`, a field only admin and manager read (only admin writes), and a
  // record rule on delete (undelete falls back to it).
  orders: {
    softDelete: 'deleted_at',
    owner: 'owner_id',
    fields: {
      id: { type: 'bigint', readOnly: true, dbDefault: true },
      title: { type: 'string', required: true },
      status: { type: 'string', enum: ['draft', 'open', 'locked'], default: 'draft' },
      owner_id: { type: 'string' },
      cost: { type: 'decimal' },
    },
    access: {
      delete: { check: (record: Record<string, unknown>) => record.status !== 'locked' },
      fields: { cost: { read: ['admin', 'manager'], write: ['admin'] } },
    },
  },
  // A tenant column and a field only admin reads; no rules: capabilities decide.
  notes: {
    tenant: 'tenant_id',
    fields: {
      id: { type: 'integer', readOnly: true, dbDefault: true },
      body: { type: 'string', required: true },
      internal: { type: 'string' },
    },
    access: { fields: { internal: { read: ['admin'] } } },
  },
  // Read only by admin: manager's `*.read` is overridden, so only admin can do anything with it.
  secrets: {
    softDelete: 'deleted_at',
    version: 'version',
    fields: {
      id: { type: 'integer', readOnly: true, dbDefault: true },
      label: { type: 'string', required: true },
      value: { type: 'string' },
    },
    access: { read: ['admin'] },
  },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA + `
  INSERT INTO notes (body, internal, tenant_id) VALUES ('tenant two', 'theirs', 't2');
`)
const app = await buildApp({
  databaseUrl,
  tenant: 't1',
  roles: {
    manager: ['orders.*', '*.read'],
    user: ['orders.read.own', 'orders.create.own', 'orders.update.own', 'orders.delete.own'],
  },
  resources: RESOURCES,
})
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'manager@example.com', 'manager')
await createUser(app, 'user@example.com', 'user')
await createUser(app, 'other@example.com', 'user')
const db = databasePool(databaseUrl, 2)
const ids = {
  user: await userId(app, 'user@example.com'),
  other: await userId(app, 'other@example.com'),
}

type Role = 'admin' | 'manager' | 'user'
const calls: Record<Role, Call> = {
  admin: caller(app, await bearer(app, 'admin@example.com')),
  manager: caller(app, await bearer(app, 'manager@example.com')),
  user: caller(app, await bearer(app, 'user@example.com')),
}

// The plain-role-list apps of the tests at the end of this file (all setup runs before any test).
const denyUrl = await freshDatabase()
await runSql(denyUrl, `
  CREATE TABLE docs (id serial PRIMARY KEY, title text NOT NULL, deleted_at timestamptz);
  CREATE TABLE vault (id serial PRIMARY KEY, label text NOT NULL);
  INSERT INTO vault (label) VALUES ('v');
  CREATE TABLE drafts (id serial PRIMARY KEY, body text NOT NULL, deleted_at timestamptz);
  INSERT INTO drafts (body) VALUES ('d');
`)
const denyApp = await buildApp({
  databaseUrl: denyUrl,
  roles: ['admin', 'clerk', 'guest'],
  defaultRole: 'guest',
  defaultAccess: 'deny',
  rowPermissions: false,
  resources: {
    docs: { softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } }, access: { read: true, create: ['clerk'] } },
    vault: { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, label: { type: 'string', required: true } } },
    // A drop box: guests may only create; reading is denied by default, so it is 403, not 404.
    drafts: { softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string', required: true } }, access: { create: ['guest'] } },
  },
})
await createUser(denyApp, 'admin@example.com', 'admin')
await createUser(denyApp, 'clerk@example.com', 'clerk')
await createUser(denyApp, 'guest@example.com', 'guest')
const denyDb = databasePool(denyUrl, 2)
const denyCalls = {
  admin: caller(denyApp, await bearer(denyApp, 'admin@example.com')),
  clerk: caller(denyApp, await bearer(denyApp, 'clerk@example.com')),
  guest: caller(denyApp, await bearer(denyApp, 'guest@example.com')),
}

const openUrl = await freshDatabase()
await runSql(openUrl, `
  CREATE TABLE docs (id serial PRIMARY KEY, title text NOT NULL, deleted_at timestamptz);
  CREATE TABLE tasks (
    id serial PRIMARY KEY,
    title text NOT NULL,
    status text NOT NULL DEFAULT 'open',
    archived boolean NOT NULL DEFAULT false,
    locked boolean NOT NULL DEFAULT false,
    priority integer NOT NULL DEFAULT 1,
    note text,
    deleted_at timestamptz
  );
  CREATE TABLE journal (id serial PRIMARY KEY, title text NOT NULL, owner_id text, pinned boolean NOT NULL DEFAULT false);
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, tenant_id text NOT NULL, deleted_at timestamptz);
  INSERT INTO notes (body, tenant_id) VALUES ('n', 't1');
  CREATE TABLE boards (id serial PRIMARY KEY, title text NOT NULL, team text);
  INSERT INTO boards (title, team) VALUES ('red board', 'red'), ('blue board', 'blue'), ('green board', 'green'), ('no team', NULL);
`)
const isAdmin = (ctx: { user: { roles: readonly string[] } }): boolean => ctx.user.roles.includes('admin')
const openApp = await buildApp({
  databaseUrl: openUrl,
  roles: ['admin', 'clerk'],
  rowPermissions: { except: ['docs'] },
  resources: {
    docs: { softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } },
    tasks: {
      softDelete: 'deleted_at',
      fields: {
        id: { type: 'integer', readOnly: true, dbDefault: true },
        title: { type: 'string', required: true },
        status: { type: 'string', enum: ['open', 'closed'], default: 'open' },
        archived: { type: 'boolean', default: false },
        locked: { type: 'boolean', default: false },
        priority: { type: 'integer', default: 1 },
        note: { type: 'string' },
      },
      access: {
        // A function returning a row filter in AIP-160 text for everyone but admin.
        read: (ctx: { user: { roles: readonly string[] } }) => isAdmin(ctx) ? true : { filter: 'archived = false' },
        // A record check on create: false refuses; a filter is settled against the row as written.
        create: { check: (record: Record<string, unknown>) => Number(record.priority) > 5 ? false : { filter: 'priority <= 3' } },
        update: { check: (record: Record<string, unknown>) => record.locked === true ? false : { filter: 'status != "closed"' } },
        // A function returning a boolean; undelete falls back to it.
        delete: isAdmin,
        fields: { note: { read: isAdmin, write: ['admin'] } },
      },
    },
    journal: {
      owner: 'owner_id',
      fields: {
        id: { type: 'integer', readOnly: true, dbDefault: true },
        title: { type: 'string', required: true },
        owner_id: { type: 'string' },
        pinned: { type: 'boolean', default: false },
      },
      access: {
        read: true,
        // Equality maps from functions: `.own` written out by hand.
        create: (ctx: { user: { id: string } }) => ({ filter: { owner_id: ctx.user.id } }),
        update: (ctx: { user: { id: string } }) => ({ filter: { owner_id: ctx.user.id } }),
        delete: { filter: 'pinned = false' },
      },
    },
    notes: { tenant: 'tenant_id', softDelete: 'deleted_at', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string', required: true } } },
    // An equality map with a list of values: the caller's teams (admin here belongs to none).
    boards: {
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true }, team: { type: 'string' } },
      access: { read: (ctx: { user: { roles: readonly string[] } }) => ({ filter: { team: ctx.user.roles.includes('clerk') ? ['red', 'blue'] : [] } }) },
    },
  },
})
await createUser(openApp, 'admin@example.com', 'admin')
await createUser(openApp, 'clerk@example.com', 'clerk')
await createUser(openApp, 'clerk2@example.com', 'clerk')
const openDb = databasePool(openUrl, 2)
const clerkId = await userId(openApp, 'clerk@example.com')
const clerk2Id = await userId(openApp, 'clerk2@example.com')
const openCalls = {
  admin: caller(openApp, await bearer(openApp, 'admin@example.com')),
  clerk: caller(openApp, await bearer(openApp, 'clerk@example.com')),
}

type Resource = 'orders' | 'notes' | 'secrets'
type Op = 'list' | 'search' | 'get' | 'create' | 'update' | 'delete' | 'undelete'
const OPS: readonly Op[] = ['list', 'search', 'get', 'create', 'update', 'delete', 'undelete']

/** Rows seeded for one cell, by name: their keys. */
type Seeded = Record<string, string>

/**
 * Seeds the rows a cell works on, titled with the cell's tag so a list can be narrowed to them:
 * orders `mine` (the user's, draft), `theirs` (another user's, open), `locked` (the user's, locked);
 * notes `here` (tenant t1) and `away` (tenant t2); secrets `s`. `deleted` soft-deletes the orders
 * and secrets rows first (for undelete).
 */
async function seed (resource: Resource, label: string, deleted: boolean): Promise<Seeded> {
  const deletedAt = deleted ? 'now()' : 'NULL'
  if (resource === 'orders') {
    const { rows } = await db.query(`INSERT INTO orders (title, status, owner_id, cost, deleted_at) VALUES
      ($1, 'draft', $2, 11.5, ${deletedAt}), ($1, 'open', $3, 22.5, ${deletedAt}), ($1, 'locked', $2, 33.5, ${deletedAt})
      RETURNING id`, [label, ids.user, ids.other])
    return { mine: String(rows[0].id), theirs: String(rows[1].id), locked: String(rows[2].id) }
  }
  if (resource === 'notes') {
    const { rows } = await db.query(`INSERT INTO notes (body, internal, tenant_id) VALUES ($1, 'int', 't1'), ($1, 'int', 't2') RETURNING id`, [label])
    return { here: String(rows[0].id), away: String(rows[1].id) }
  }
  const { rows } = await db.query(`INSERT INTO secrets (label, value, deleted_at) VALUES ($1, 'v', ${deletedAt}) RETURNING id`, [label])
  return { s: String(rows[0].id) }
}

const TEXT_FIELD: Record<Resource, string> = { orders: 'title', notes: 'body', secrets: 'label' }

const ORDER_FIELDS = ['id', 'title', 'status', 'owner_id', 'cost', 'deleted_at']
const ORDER_FIELDS_USER = ['id', 'title', 'status', 'owner_id', 'deleted_at']
const NOTE_FIELDS = ['id', 'body', 'internal']
const NOTE_FIELDS_MANAGER = ['id', 'body']
const SECRET_FIELDS = ['id', 'label', 'value', 'version', 'deleted_at']

const edit = (names: readonly string[], readOnly: readonly string[]): Record<string, 'edit' | 'read'> =>
  Object.fromEntries(names.map((n) => [n, readOnly.includes(n) ? 'read' : 'edit']))

interface ListItem { readonly row: string, readonly update: boolean, readonly delete: boolean }

type Expect =
  | { readonly kind: 'problem', readonly slug: ProblemSlug, readonly detail: string, readonly extras?: Record<string, unknown> }
  | { readonly kind: 'hidden' }
  | { readonly kind: 'list', readonly fields: readonly string[], readonly items: readonly ListItem[] }
  | { readonly kind: 'record', readonly status: 200 | 201, readonly fields: readonly string[], readonly permissions?: Record<string, unknown>, readonly values?: Record<string, unknown> }
  | { readonly kind: 'empty' }

interface Cell {
  readonly role: Role
  readonly resource: Resource
  readonly op: Op
  /** The seeded row a key operation targets. */
  readonly target?: string
  readonly payload?: Record<string, unknown>
  /** If-Match on update (default `*`); `null` sends none. */
  readonly ifMatch?: string | null
  /** Seed soft-deleted rows (default: only for undelete). */
  readonly deleted?: boolean
  readonly note?: string
  readonly expect: Expect
  /** The stored rows afterwards (by seeded name, `created` for a create's title), read with SQL. */
  readonly stored?: (rows: Record<string, Record<string, unknown> | undefined>, label: string) => void
}

const TABLE_COLUMNS: Record<Resource, string> = {
  orders: 'id, title, status, owner_id, cost::text AS cost, deleted_at',
  notes: 'id, body, internal, tenant_id',
  secrets: 'id, label, value, version, deleted_at',
}

async function storedRows (resource: Resource, seeded: Seeded, label: string): Promise<Record<string, Record<string, unknown> | undefined>> {
  const out: Record<string, Record<string, unknown> | undefined> = {}
  for (const [name, key] of Object.entries(seeded)) {
    out[name] = (await db.query(`SELECT ${TABLE_COLUMNS[resource]} FROM ${resource} WHERE id = $1`, [key])).rows[0]
  }
  const created = await db.query(`SELECT ${TABLE_COLUMNS[resource]} FROM ${resource} WHERE ${TEXT_FIELD[resource]} = $1`, [`${label}-new`])
  out.created = created.rows[0]
  out.createdCount = { count: created.rows.length }
  return out
}

function request (cell: Cell, seeded: Seeded, label: string): { method: Method, url: string, payload?: unknown, headers: Record<string, string> } {
  const base = `/api/v1/${cell.resource}`
  const text = TEXT_FIELD[cell.resource]
  const key = cell.target === undefined ? '' : seeded[cell.target]
  switch (cell.op) {
    case 'list': return { method: 'GET', url: `${base}?filter=${encodeURIComponent(`${text} = ${quote(label)}`)}`, headers: {} }
    case 'search': return { method: 'POST', url: `${base}:search`, payload: { filter: `${text} = ${quote(label)}` }, headers: {} }
    case 'get': return { method: 'GET', url: `${base}/${key}`, headers: {} }
    case 'create': return { method: 'POST', url: base, payload: withPlaceholders(cell.payload ?? { [text]: 'NEW' }, label), headers: {} }
    case 'update': {
      const ifMatch = cell.ifMatch === undefined ? '*' : cell.ifMatch
      return { method: 'PATCH', url: `${base}/${key}`, payload: withPlaceholders(cell.payload ?? { [text]: `${label}-changed` }, label), headers: ifMatch === null ? {} : { 'if-match': ifMatch } }
    }
    case 'delete': return { method: 'DELETE', url: `${base}/${key}`, headers: {} }
    case 'undelete': return { method: 'POST', url: `${base}/${key}:undelete`, headers: {} }
  }
}

function cellName (cell: Cell): string {
  const target = cell.target === undefined ? '' : ` (${cell.target}${cell.deleted === false ? ', not deleted' : ''})`
  const expect = cell.expect
  const outcome = expect.kind === 'problem' ? `${PROBLEMS[expect.slug].status} ${expect.slug}`
    : expect.kind === 'hidden' ? '404 as an unknown route'
      : expect.kind === 'list' ? `200 with ${expect.items.length} item(s)`
        : expect.kind === 'empty' ? '204' : String(expect.status)
  return `${cell.resource} × ${cell.role} × ${cell.op}${target}${cell.note === undefined ? '' : ` ${cell.note}`} → ${outcome}`
}

async function runCell (cell: Cell): Promise<void> {
  const label = tag(`${cell.resource}-${cell.role}-${cell.op}`)
  const seeded = await seed(cell.resource, label, cell.deleted ?? cell.op === 'undelete')
  const { method, url, payload, headers } = request(cell, seeded, label)
  const response = await calls[cell.role](method, url, { payload, headers })
  const expect = cell.expect
  switch (expect.kind) {
    case 'problem':
      assertProblem(response, url, expect.slug, expect.detail, expect.extras)
      break
    case 'hidden': {
      // Exactly the body of a route that does not exist, for the same method.
      assertProblem(response, url, 'not-found', NO_ROUTE_DETAIL)
      const nowhere = `/api/v1/nowhere${url.slice(`/api/v1/${cell.resource}`.length)}`
      const unknown = await calls[cell.role](method, nowhere, { payload, headers })
      assert.deepEqual({ ...response.body, instance: nowhere }, unknown.body)
      assert.equal(response.headers['content-type'], unknown.headers['content-type'])
      break
    }
    case 'list': {
      assert.equal(response.status, 200, JSON.stringify(response.body))
      assert.deepEqual(Object.keys(response.body).sort(), ['items', 'next_page_token', 'total_size_estimate'])
      assert.equal(response.body.next_page_token, '')
      assert.equal(response.body.total_size_estimate, expect.items.length)
      assert.deepEqual(response.body.items.map((item: Record<string, unknown>) => String(item.id)), expect.items.map((i) => seeded[i.row]))
      for (const [i, item] of (response.body.items as Array<Record<string, unknown>>).entries()) {
        assert.deepEqual(Object.keys(item).sort(), [...expect.fields, 'etag', 'permissions'].sort())
        assert.deepEqual(item.permissions, { update: expect.items[i]!.update, delete: expect.items[i]!.delete })
      }
      break
    }
    case 'record': {
      assert.equal(response.status, expect.status, JSON.stringify(response.body))
      const keys = [...expect.fields, 'etag', ...(expect.permissions === undefined ? [] : ['permissions'])]
      assert.deepEqual(Object.keys(response.body).sort(), keys.sort())
      assert.equal(response.headers.etag, response.body.etag)
      if (expect.permissions !== undefined) assert.deepEqual(response.body.permissions, expect.permissions)
      for (const [name, value] of Object.entries(withPlaceholders(expect.values ?? {}, label))) assert.deepEqual(response.body[name], value, name)
      if (expect.status === 201) assert.equal(response.headers.location, `/api/v1/${cell.resource}/${response.body.id}`)
      break
    }
    case 'empty':
      assert.equal(response.status, 204, JSON.stringify(response.body))
      assert.equal(response.body, undefined)
      break
  }
  if (cell.stored !== undefined) cell.stored(await storedRows(cell.resource, seeded, label), label)
}

const cells: Cell[] = []
const add = (...more: Cell[]): void => { cells.push(...more) }

// --- secrets: invisible to manager and user, everything for admin -----------------------------
for (const role of ['manager', 'user'] as const) {
  for (const op of OPS) add({ role, resource: 'secrets', op, target: ['get', 'update', 'delete', 'undelete'].includes(op) ? 's' : undefined, expect: { kind: 'hidden' } })
}
const secretPermissions = { update: true, delete: true, fields: edit(SECRET_FIELDS, ['id', 'version', 'deleted_at']) }
add(
  { role: 'admin', resource: 'secrets', op: 'list', expect: { kind: 'list', fields: SECRET_FIELDS, items: [{ row: 's', update: true, delete: true }] } },
  { role: 'admin', resource: 'secrets', op: 'search', expect: { kind: 'list', fields: SECRET_FIELDS, items: [{ row: 's', update: true, delete: true }] } },
  { role: 'admin', resource: 'secrets', op: 'get', target: 's', expect: { kind: 'record', status: 200, fields: SECRET_FIELDS, permissions: secretPermissions, values: { value: 'v' } } },
  { role: 'admin', resource: 'secrets', op: 'create', expect: { kind: 'record', status: 201, fields: SECRET_FIELDS, values: { value: null } }, stored: (rows) => { assert.equal(rows.created!.version, 1) } },
  { role: 'admin', resource: 'secrets', op: 'update', target: 's', expect: { kind: 'record', status: 200, fields: SECRET_FIELDS }, stored: (rows) => { assert.equal(rows.s!.version, 2) } },
  { role: 'admin', resource: 'secrets', op: 'delete', target: 's', expect: { kind: 'empty' }, stored: (rows) => { assert.notEqual(rows.s!.deleted_at, null) } },
  { role: 'admin', resource: 'secrets', op: 'undelete', target: 's', expect: { kind: 'record', status: 200, fields: SECRET_FIELDS, values: { deleted_at: null } } },
)

// --- notes: tenant-scoped; admin everything in t1, manager reads (`*.read`), user nothing -------
add(
  { role: 'user', resource: 'notes', op: 'list', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'search', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'get', target: 'here', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'create', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'update', target: 'here', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'delete', target: 'here', expect: { kind: 'hidden' } },
  { role: 'user', resource: 'notes', op: 'undelete', target: 'here', expect: { kind: 'hidden' } },

  { role: 'manager', resource: 'notes', op: 'list', expect: { kind: 'list', fields: NOTE_FIELDS_MANAGER, items: [{ row: 'here', update: false, delete: false }] } },
  { role: 'manager', resource: 'notes', op: 'search', expect: { kind: 'list', fields: NOTE_FIELDS_MANAGER, items: [{ row: 'here', update: false, delete: false }] } },
  { role: 'manager', resource: 'notes', op: 'get', target: 'here', expect: { kind: 'record', status: 200, fields: NOTE_FIELDS_MANAGER, permissions: { update: false, delete: false, fields: { id: 'read', body: 'read' } } } },
  { role: 'manager', resource: 'notes', op: 'get', target: 'away', expect: { kind: 'problem', slug: 'not-found', detail: 'No notes record has this key.' } },
  { role: 'manager', resource: 'notes', op: 'create', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not create notes records.' }, stored: (rows) => { assert.equal(rows.created, undefined) } },
  { role: 'manager', resource: 'notes', op: 'update', target: 'here', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not update notes records.' }, stored: (rows, label) => { assert.equal(rows.here!.body, label) } },
  { role: 'manager', resource: 'notes', op: 'delete', target: 'here', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not delete notes records.' }, stored: (rows) => { assert.notEqual(rows.here, undefined) } },
  { role: 'manager', resource: 'notes', op: 'undelete', target: 'here', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not undelete notes records.' } },

  { role: 'admin', resource: 'notes', op: 'list', expect: { kind: 'list', fields: NOTE_FIELDS, items: [{ row: 'here', update: true, delete: true }] } },
  { role: 'admin', resource: 'notes', op: 'search', expect: { kind: 'list', fields: NOTE_FIELDS, items: [{ row: 'here', update: true, delete: true }] } },
  { role: 'admin', resource: 'notes', op: 'get', target: 'here', expect: { kind: 'record', status: 200, fields: NOTE_FIELDS, permissions: { update: true, delete: true, fields: { id: 'read', body: 'edit', internal: 'edit' } }, values: { internal: 'int' } } },
  { role: 'admin', resource: 'notes', op: 'get', target: 'away', note: 'of another tenant', expect: { kind: 'problem', slug: 'not-found', detail: 'No notes record has this key.' } },
  { role: 'admin', resource: 'notes', op: 'create', expect: { kind: 'record', status: 201, fields: NOTE_FIELDS }, stored: (rows) => { assert.equal(rows.created!.tenant_id, 't1') } },
  {
    role: 'admin', resource: 'notes', op: 'create', note: 'naming the tenant column', payload: { body: 'x', tenant_id: 't2' },
    expect: { kind: 'problem', slug: 'invalid-record', detail: 'tenant_id is not a field of notes.', extras: { errors: [{ field: 'tenant_id', code: 'unknown', message: 'tenant_id is not a field of notes.' }] } },
  },
  { role: 'admin', resource: 'notes', op: 'update', target: 'here', expect: { kind: 'record', status: 200, fields: NOTE_FIELDS }, stored: (rows, label) => { assert.equal(rows.here!.body, `${label}-changed`) } },
  { role: 'admin', resource: 'notes', op: 'update', target: 'away', note: 'of another tenant', expect: { kind: 'problem', slug: 'not-found', detail: 'No notes record has this key.' }, stored: (rows, label) => { assert.equal(rows.away!.body, label) } },
  { role: 'admin', resource: 'notes', op: 'delete', target: 'here', expect: { kind: 'empty' }, stored: (rows) => { assert.equal(rows.here, undefined) } },
  { role: 'admin', resource: 'notes', op: 'delete', target: 'away', note: 'of another tenant', expect: { kind: 'problem', slug: 'not-found', detail: 'No notes record has this key.' }, stored: (rows) => { assert.notEqual(rows.away, undefined) } },
  {
    role: 'admin', resource: 'notes', op: 'undelete', target: 'here',
    expect: { kind: 'problem', slug: 'invalid-parameter', detail: 'notes has no soft delete: a deleted record is gone and cannot be undeleted.', extras: { errors: [{ parameter: 'undelete', message: 'not available on a resource without soft delete' }] } },
  },
)

// --- orders: admin everything; manager everything but writing cost; user only their own rows ----
const orderPermissions = (role: Role, update: boolean, del: boolean): Record<string, unknown> => {
  const fields = role === 'user' ? ORDER_FIELDS_USER : ORDER_FIELDS
  const readOnly = ['id', 'deleted_at', ...(role === 'manager' ? ['cost'] : [])]
  return { update, delete: del, fields: update ? edit(fields, readOnly) : edit(fields, fields) }
}
for (const role of ['admin', 'manager'] as const) {
  const all = [{ row: 'mine', update: true, delete: true }, { row: 'theirs', update: true, delete: true }, { row: 'locked', update: true, delete: false }]
  add(
    { role, resource: 'orders', op: 'list', expect: { kind: 'list', fields: ORDER_FIELDS, items: all } },
    { role, resource: 'orders', op: 'search', expect: { kind: 'list', fields: ORDER_FIELDS, items: all } },
    { role, resource: 'orders', op: 'get', target: 'theirs', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS, permissions: orderPermissions(role, true, true), values: { cost: '22.500', owner_id: ids.other } } },
    { role, resource: 'orders', op: 'get', target: 'locked', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS, permissions: orderPermissions(role, true, false) } },
    { role, resource: 'orders', op: 'update', target: 'theirs', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS, values: { cost: '22.500' } }, stored: (rows, label) => { assert.equal(rows.theirs!.title, `${label}-changed`) } },
    { role, resource: 'orders', op: 'update', target: 'theirs', note: 'without If-Match', ifMatch: null, expect: { kind: 'problem', slug: 'precondition-required', detail: 'An update needs If-Match: send the record\'s etag (or * to overwrite any version).' } },
    { role, resource: 'orders', op: 'delete', target: 'theirs', expect: { kind: 'empty' }, stored: (rows) => { assert.notEqual(rows.theirs!.deleted_at, null) } },
    { role, resource: 'orders', op: 'delete', target: 'locked', note: 'refused by the record rule', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not delete this orders record.' }, stored: (rows) => { assert.equal(rows.locked!.deleted_at, null) } },
    { role, resource: 'orders', op: 'undelete', target: 'theirs', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS, values: { deleted_at: null } }, stored: (rows) => { assert.equal(rows.theirs!.deleted_at, null) } },
    { role, resource: 'orders', op: 'undelete', target: 'locked', note: 'refused by the record rule', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not undelete this orders record.' }, stored: (rows) => { assert.notEqual(rows.locked!.deleted_at, null) } },
    { role, resource: 'orders', op: 'undelete', target: 'theirs', deleted: false, expect: { kind: 'problem', slug: 'conflict', detail: 'This orders is not deleted, so there is nothing to undelete.' } },
  )
}
add(
  { role: 'admin', resource: 'orders', op: 'create', note: 'for someone else, with cost', payload: { title: 'NEW', owner_id: 'someone', cost: '5.5' }, expect: { kind: 'record', status: 201, fields: ORDER_FIELDS, values: { owner_id: 'someone', cost: '5.500' } } },
  { role: 'admin', resource: 'orders', op: 'create', note: 'without an owner', expect: { kind: 'record', status: 201, fields: ORDER_FIELDS, values: { owner_id: null, cost: null } } },
  { role: 'admin', resource: 'orders', op: 'update', target: 'mine', note: 'setting cost', payload: { cost: '7' }, expect: { kind: 'record', status: 200, fields: ORDER_FIELDS, values: { cost: '7.000' } } },
  { role: 'manager', resource: 'orders', op: 'create', expect: { kind: 'record', status: 201, fields: ORDER_FIELDS, values: { owner_id: null, cost: null } } },
  {
    role: 'manager', resource: 'orders', op: 'create', note: 'setting cost (readable, not writable)', payload: { title: 'x', cost: '1' },
    expect: { kind: 'problem', slug: 'invalid-record', detail: 'cost is read-only.', extras: { errors: [{ field: 'cost', code: 'read-only', message: 'cost is read-only.' }] } },
  },
  {
    role: 'manager', resource: 'orders', op: 'update', target: 'theirs', note: 'setting cost', payload: { cost: '1' },
    expect: { kind: 'problem', slug: 'invalid-record', detail: 'cost is read-only.', extras: { errors: [{ field: 'cost', code: 'read-only', message: 'cost is read-only.' }] } },
    stored: (rows) => { assert.equal(rows.theirs!.cost, '22.500') },
  },
)

// The `.own` user: their rows only; a row outside is 404; writing a row outside is 403 and undone.
const userRows = [{ row: 'mine', update: true, delete: true }, { row: 'locked', update: true, delete: false }]
const NOT_AN_ORDER = 'No orders record has this key.'
const OUTSIDE = 'The orders record as written would be outside what you may write.'
add(
  { role: 'user', resource: 'orders', op: 'list', expect: { kind: 'list', fields: ORDER_FIELDS_USER, items: userRows } },
  { role: 'user', resource: 'orders', op: 'search', expect: { kind: 'list', fields: ORDER_FIELDS_USER, items: userRows } },
  { role: 'user', resource: 'orders', op: 'get', target: 'mine', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS_USER, permissions: orderPermissions('user', true, true), values: { owner_id: ids.user } } },
  { role: 'user', resource: 'orders', op: 'get', target: 'locked', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS_USER, permissions: orderPermissions('user', true, false) } },
  { role: 'user', resource: 'orders', op: 'get', target: 'theirs', expect: { kind: 'problem', slug: 'not-found', detail: NOT_AN_ORDER } },
  {
    role: 'user', resource: 'orders', op: 'create', note: 'without an owner: the owner is the caller',
    expect: { kind: 'record', status: 201, fields: ORDER_FIELDS_USER, values: { owner_id: ids.user, status: 'draft' } },
    stored: (rows) => { assert.equal(rows.created!.owner_id, ids.user) },
  },
  { role: 'user', resource: 'orders', op: 'create', note: 'naming themselves as owner', payload: { title: 'NEW', owner_id: 'SELF' }, expect: { kind: 'record', status: 201, fields: ORDER_FIELDS_USER, values: { owner_id: 'SELF' } } },
  {
    role: 'user', resource: 'orders', op: 'create', note: 'for someone else', payload: { title: 'NEW', owner_id: 'OTHER' },
    expect: { kind: 'problem', slug: 'access-denied', detail: OUTSIDE }, stored: (rows) => { assert.equal(rows.createdCount!.count, 0) },
  },
  {
    role: 'user', resource: 'orders', op: 'create', note: 'with the hidden cost', payload: { title: 'NEW', cost: '1' },
    expect: { kind: 'problem', slug: 'invalid-record', detail: 'cost is not a field of orders.', extras: { errors: [{ field: 'cost', code: 'unknown', message: 'cost is not a field of orders.' }] } },
    stored: (rows) => { assert.equal(rows.createdCount!.count, 0) },
  },
  { role: 'user', resource: 'orders', op: 'update', target: 'mine', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS_USER }, stored: (rows, label) => { assert.equal(rows.mine!.title, `${label}-changed`); assert.equal(rows.mine!.cost, '11.500') } },
  { role: 'user', resource: 'orders', op: 'update', target: 'theirs', expect: { kind: 'problem', slug: 'not-found', detail: NOT_AN_ORDER }, stored: (rows, label) => { assert.equal(rows.theirs!.title, label) } },
  { role: 'user', resource: 'orders', op: 'update', target: 'theirs', note: 'without If-Match', ifMatch: null, expect: { kind: 'problem', slug: 'not-found', detail: NOT_AN_ORDER } },
  { role: 'user', resource: 'orders', op: 'update', target: 'mine', note: 'without If-Match', ifMatch: null, expect: { kind: 'problem', slug: 'precondition-required', detail: 'An update needs If-Match: send the record\'s etag (or * to overwrite any version).' } },
  {
    role: 'user', resource: 'orders', op: 'update', target: 'mine', note: 'giving it away', payload: { title: 'given', owner_id: 'OTHER' },
    expect: { kind: 'problem', slug: 'access-denied', detail: OUTSIDE },
    stored: (rows, label) => { assert.equal(rows.mine!.owner_id, ids.user); assert.equal(rows.mine!.title, label) },
  },
  {
    role: 'user', resource: 'orders', op: 'update', target: 'mine', note: 'with the hidden cost', payload: { cost: '1' },
    expect: { kind: 'problem', slug: 'invalid-record', detail: 'cost is not a field of orders.', extras: { errors: [{ field: 'cost', code: 'unknown', message: 'cost is not a field of orders.' }] } },
    stored: (rows) => { assert.equal(rows.mine!.cost, '11.500') },
  },
  { role: 'user', resource: 'orders', op: 'delete', target: 'mine', expect: { kind: 'empty' }, stored: (rows) => { assert.notEqual(rows.mine!.deleted_at, null) } },
  { role: 'user', resource: 'orders', op: 'delete', target: 'theirs', expect: { kind: 'problem', slug: 'not-found', detail: NOT_AN_ORDER }, stored: (rows) => { assert.equal(rows.theirs!.deleted_at, null) } },
  { role: 'user', resource: 'orders', op: 'delete', target: 'locked', note: 'refused by the record rule', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not delete this orders record.' }, stored: (rows) => { assert.equal(rows.locked!.deleted_at, null) } },
  { role: 'user', resource: 'orders', op: 'undelete', target: 'mine', expect: { kind: 'record', status: 200, fields: ORDER_FIELDS_USER, values: { deleted_at: null } }, stored: (rows) => { assert.equal(rows.mine!.deleted_at, null) } },
  { role: 'user', resource: 'orders', op: 'undelete', target: 'theirs', expect: { kind: 'problem', slug: 'not-found', detail: NOT_AN_ORDER }, stored: (rows) => { assert.notEqual(rows.theirs!.deleted_at, null) } },
  { role: 'user', resource: 'orders', op: 'undelete', target: 'locked', note: 'refused by the record rule', expect: { kind: 'problem', slug: 'access-denied', detail: 'You may not undelete this orders record.' } },
)

/** Placeholders in payloads and expected values: the cell's new title, and user ids known only at run time. */
function placeholders (value: unknown, label: string): unknown {
  const map: Record<string, unknown> = { NEW: `${label}-new`, SELF: ids.user, OTHER: ids.other }
  return typeof value === 'string' && value in map ? map[value] : value
}

function withPlaceholders (object: Record<string, unknown>, label: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, placeholders(v, label)]))
}

test('the matrix covers every role × operation × resource', () => {
  for (const role of ['admin', 'manager', 'user'] as const) {
    for (const resource of ['orders', 'notes', 'secrets'] as const) {
      for (const op of OPS) {
        assert.ok(cells.some((c) => c.role === role && c.resource === resource && c.op === op), `${resource} × ${role} × ${op} has no cell`)
      }
    }
  }
})

for (const cell of cells) {
  test(cellName(cell), async () => {
    await runCell(cell)
  })
}

// ---------------------------------------------------------------------------------------------
// Shared checks for the apps below.

async function assertRecord (response: CallResult, status: 200 | 201, fields: readonly string[], permissions?: Record<string, unknown>): Promise<void> {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.deepEqual(Object.keys(response.body).sort(), [...fields, 'etag', ...(permissions === undefined ? [] : ['permissions'])].sort())
  assert.equal(response.headers.etag, response.body.etag)
  if (permissions !== undefined) assert.deepEqual(response.body.permissions, permissions)
}

async function seedRow (pool: pg.Pool, text: string, values: unknown[] = []): Promise<string> {
  const { rows } = await pool.query(text, values)
  return String(rows[0].id)
}

// ---------------------------------------------------------------------------------------------
// A plain role list with `defaultAccess: 'deny'`: operations without a rule are denied to every
// role, admin included; a resource without any rule does not exist for anyone. rowPermissions off.

for (const role of ['admin', 'clerk', 'guest'] as const) {
  test(`defaultAccess deny, plain roles: docs × ${role}: read and search allowed (no permissions), create only for clerk, the rest 403`, async () => {
    const call = denyCalls[role]
    const title = tag('doc')
    const id = await seedRow(denyDb, 'INSERT INTO docs (title) VALUES ($1) RETURNING id', [title])
    const filter = `title = ${quote(title)}`
    const listed = await call('GET', `/api/v1/docs?filter=${encodeURIComponent(filter)}`)
    assert.equal(listed.status, 200)
    assert.deepEqual(listed.body.items.map((i: Record<string, unknown>) => Object.keys(i).sort()), [['deleted_at', 'etag', 'id', 'title']])
    const searched = await call('POST', '/api/v1/docs:search', { payload: { filter } })
    assert.deepEqual(searched.body, listed.body)
    await assertRecord(await call('GET', `/api/v1/docs/${id}`), 200, ['id', 'title', 'deleted_at'])

    const created = await call('POST', '/api/v1/docs', { payload: { title: `${title}-new` } })
    if (role === 'clerk') await assertRecord(created, 201, ['id', 'title', 'deleted_at'])
    else assertProblem(created, '/api/v1/docs', 'access-denied', 'You may not create docs records.')
    const update = await call('PATCH', `/api/v1/docs/${id}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })
    assertProblem(update, `/api/v1/docs/${id}`, 'access-denied', 'You may not update docs records.')
    assertProblem(await call('DELETE', `/api/v1/docs/${id}`), `/api/v1/docs/${id}`, 'access-denied', 'You may not delete docs records.')
    await denyDb.query('UPDATE docs SET deleted_at = now() WHERE id = $1', [id])
    assertProblem(await call('POST', `/api/v1/docs/${id}:undelete`), `/api/v1/docs/${id}:undelete`, 'access-denied', 'You may not undelete docs records.')
    const { rows } = await denyDb.query('SELECT title FROM docs WHERE id = $1', [id])
    assert.equal(rows[0].title, title)
  })

  test(`defaultAccess deny, plain roles: vault (no rules) × ${role}: 404 as an unknown route for every operation`, async () => {
    const call = denyCalls[role]
    const requests: Array<[Method, string, unknown]> = [
      ['GET', '/api/v1/vault', undefined], ['POST', '/api/v1/vault:search', {}], ['GET', '/api/v1/vault/1', undefined],
      ['POST', '/api/v1/vault', { label: 'x' }], ['PATCH', '/api/v1/vault/1', { label: 'x' }], ['DELETE', '/api/v1/vault/1', undefined],
      ['POST', '/api/v1/vault/1:undelete', undefined],
    ]
    for (const [method, url, payload] of requests) {
      assertProblem(await call(method, url, { payload, headers: method === 'PATCH' ? { 'if-match': '*' } : {} }), url, 'not-found', NO_ROUTE_DETAIL)
    }
    assert.equal((await denyDb.query('SELECT label FROM vault')).rows.length, 1)
  })
}

test('defaultAccess deny: a resource a role may only create in is there for it (403 on reads and other writes) and absent for the others', async () => {
  const requests: Array<[Method, string, unknown, Record<string, string>, string]> = [
    ['GET', '/api/v1/drafts', undefined, {}, 'read'], ['POST', '/api/v1/drafts:search', {}, {}, 'read'], ['GET', '/api/v1/drafts/1', undefined, {}, 'read'],
    ['PATCH', '/api/v1/drafts/1', { body: 'x' }, { 'if-match': '*' }, 'update'], ['DELETE', '/api/v1/drafts/1', undefined, {}, 'delete'],
    ['POST', '/api/v1/drafts/1:undelete', undefined, {}, 'undelete'],
  ]
  for (const [method, url, payload, headers, operation] of requests) {
    assertProblem(await denyCalls.guest(method, url, { payload, headers }), url, 'access-denied', `You may not ${operation} drafts records.`)
    for (const role of ['admin', 'clerk'] as const) assertProblem(await denyCalls[role](method, url, { payload, headers }), url, 'not-found', NO_ROUTE_DETAIL)
  }
  await assertRecord(await denyCalls.guest('POST', '/api/v1/drafts', { payload: { body: 'dropped' } }), 201, ['id', 'body', 'deleted_at'])
  for (const role of ['admin', 'clerk'] as const) assertProblem(await denyCalls[role]('POST', '/api/v1/drafts', { payload: { body: 'x' } }), '/api/v1/drafts', 'not-found', NO_ROUTE_DETAIL)
  assert.deepEqual((await denyDb.query('SELECT body, deleted_at FROM drafts ORDER BY id')).rows, [{ body: 'd', deleted_at: null }, { body: 'dropped', deleted_at: null }])
})

// ---------------------------------------------------------------------------------------------
// A plain role list with neither bundles nor defaultAccess: operations without a rule are allowed.
// Function rules, `{ filter }` as AIP-160 text and as an equality map, record checks returning
// `{ filter }`, a function field rule, a tenant column without a caller tenant, and permissions
// turned off for one resource.

test('neither bundles nor defaultAccess: every operation without a rule is allowed; rowPermissions except leaves out permissions', async () => {
  const call = openCalls.clerk
  const title = tag('doc')
  const id = await seedRow(openDb, 'INSERT INTO docs (title) VALUES ($1) RETURNING id', [title])
  const fields = ['id', 'title', 'deleted_at']
  const listed = await call('GET', `/api/v1/docs?filter=${encodeURIComponent(`title = ${quote(title)}`)}`)
  assert.equal(listed.status, 200)
  assert.deepEqual(listed.body.items.map((i: Record<string, unknown>) => Object.keys(i).sort()), [['deleted_at', 'etag', 'id', 'title']])
  const searched = await call('POST', '/api/v1/docs:search', { payload: { filter: `title = ${quote(title)}` } })
  assert.deepEqual(searched.body, listed.body)
  await assertRecord(await call('GET', `/api/v1/docs/${id}`), 200, fields)
  await assertRecord(await call('POST', '/api/v1/docs', { payload: { title: `${title}-new` } }), 201, fields)
  await assertRecord(await call('PATCH', `/api/v1/docs/${id}`, { payload: { title: `${title}-changed` }, headers: { 'if-match': '*' } }), 200, fields)
  const deleted = await call('DELETE', `/api/v1/docs/${id}`)
  assert.equal(deleted.status, 204)
  await assertRecord(await call('POST', `/api/v1/docs/${id}:undelete`), 200, fields)
})

test('a tenant-scoped resource and a caller without a tenant: 403 tenant-required for every operation and role', async () => {
  const detail = 'notes is kept per tenant, and this caller has no tenant.'
  const requests: Array<[Method, string, unknown, Record<string, string>]> = [
    ['GET', '/api/v1/notes', undefined, {}], ['POST', '/api/v1/notes:search', {}, {}], ['GET', '/api/v1/notes/1', undefined, {}],
    ['POST', '/api/v1/notes', { body: 'x' }, {}], ['PATCH', '/api/v1/notes/1', { body: 'x' }, { 'if-match': '*' }],
    ['DELETE', '/api/v1/notes/1', undefined, {}], ['POST', '/api/v1/notes/1:undelete', undefined, {}],
  ]
  for (const role of ['admin', 'clerk'] as const) {
    for (const [method, url, payload, headers] of requests) {
      assertProblem(await openCalls[role](method, url, { payload, headers }), url, 'tenant-required', detail)
    }
  }
  const { rows } = await openDb.query('SELECT body, deleted_at FROM notes')
  assert.deepEqual(rows, [{ body: 'n', deleted_at: null }])
})

const TASK_FIELDS_CLERK = ['id', 'title', 'status', 'archived', 'locked', 'priority', 'deleted_at']
const TASK_FIELDS_ADMIN = [...TASK_FIELDS_CLERK, 'note']

async function seedTasks (title: string): Promise<Record<'plain' | 'archived' | 'locked' | 'closed', string>> {
  const { rows } = await openDb.query(`INSERT INTO tasks (title, archived, locked, status, note) VALUES
    ($1, false, false, 'open', 'n'), ($1, true, false, 'open', 'n'), ($1, false, true, 'open', 'n'), ($1, false, false, 'closed', 'n') RETURNING id`, [title])
  return { plain: String(rows[0].id), archived: String(rows[1].id), locked: String(rows[2].id), closed: String(rows[3].id) }
}

test('a function read rule returning an AIP-160 filter narrows list, search, get and write targets; a function field rule hides a field', async () => {
  const title = tag('task')
  const t = await seedTasks(title)
  const filter = `title = ${quote(title)}`
  // Clerk: archived rows do not exist; `note` is not a field; update permissions follow the record
  // check (false for the locked row; a filter it returns counts as allowed); delete is admin's.
  const listed = await openCalls.clerk('GET', `/api/v1/tasks?filter=${encodeURIComponent(filter)}`)
  assert.equal(listed.status, 200)
  assert.deepEqual(listed.body.items.map((i: Record<string, unknown>) => [String(i.id), Object.keys(i).sort(), i.permissions]), [
    [t.plain, [...TASK_FIELDS_CLERK, 'etag', 'permissions'].sort(), { update: true, delete: false }],
    [t.locked, [...TASK_FIELDS_CLERK, 'etag', 'permissions'].sort(), { update: false, delete: false }],
    [t.closed, [...TASK_FIELDS_CLERK, 'etag', 'permissions'].sort(), { update: true, delete: false }],
  ])
  const searched = await openCalls.clerk('POST', '/api/v1/tasks:search', { payload: { filter } })
  assert.deepEqual(searched.body, listed.body)
  const clerkEdit = edit(TASK_FIELDS_CLERK, ['id', 'deleted_at'])
  await assertRecord(await openCalls.clerk('GET', `/api/v1/tasks/${t.plain}`), 200, TASK_FIELDS_CLERK, { update: true, delete: false, fields: clerkEdit })
  await assertRecord(await openCalls.clerk('GET', `/api/v1/tasks/${t.locked}`), 200, TASK_FIELDS_CLERK, { update: false, delete: false, fields: edit(TASK_FIELDS_CLERK, TASK_FIELDS_CLERK) })
  assertProblem(await openCalls.clerk('GET', `/api/v1/tasks/${t.archived}`), `/api/v1/tasks/${t.archived}`, 'not-found', 'No tasks record has this key.')
  const outside = await openCalls.clerk('PATCH', `/api/v1/tasks/${t.archived}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })
  assertProblem(outside, `/api/v1/tasks/${t.archived}`, 'not-found', 'No tasks record has this key.')
  const noteBody = await openCalls.clerk('PATCH', `/api/v1/tasks/${t.plain}`, { payload: { note: 'x' }, headers: { 'if-match': '*' } })
  assertProblem(noteBody, `/api/v1/tasks/${t.plain}`, 'invalid-record', 'note is not a field of tasks.', { errors: [{ field: 'note', code: 'unknown', message: 'note is not a field of tasks.' }] })
  // Admin: everything, `note` included and writable.
  const all = await openCalls.admin('GET', `/api/v1/tasks?filter=${encodeURIComponent(filter)}`)
  assert.deepEqual(all.body.items.map((i: Record<string, unknown>) => [String(i.id), i.permissions]), [
    [t.plain, { update: true, delete: true }], [t.archived, { update: true, delete: true }], [t.locked, { update: false, delete: true }], [t.closed, { update: true, delete: true }],
  ])
  await assertRecord(await openCalls.admin('GET', `/api/v1/tasks/${t.archived}`), 200, TASK_FIELDS_ADMIN, { update: true, delete: true, fields: edit(TASK_FIELDS_ADMIN, ['id', 'deleted_at']) })
})

test('an update check returning { filter }: a row that would fall outside it is 403 and rolled back; false is 403; inside is 200', async () => {
  const title = tag('task')
  const t = await seedTasks(title)
  const before = (await openDb.query('SELECT * FROM tasks WHERE id = $1', [t.plain])).rows[0]
  const url = `/api/v1/tasks/${t.plain}`
  const closing = await openCalls.clerk('PATCH', url, { payload: { status: 'closed', title: 'closing' }, headers: { 'if-match': '*' } })
  assertProblem(closing, url, 'access-denied', 'The tasks record as written would be outside what you may write.')
  assert.deepEqual((await openDb.query('SELECT * FROM tasks WHERE id = $1', [t.plain])).rows[0], before)
  // The filter is checked on the row as written, not as stored: a closed row may be reopened.
  const reopened = await openCalls.clerk('PATCH', `/api/v1/tasks/${t.closed}`, { payload: { status: 'open' }, headers: { 'if-match': '*' } })
  await assertRecord(reopened, 200, TASK_FIELDS_CLERK)
  assert.equal(reopened.body.status, 'open')
  const locked = await openCalls.clerk('PATCH', `/api/v1/tasks/${t.locked}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })
  assertProblem(locked, `/api/v1/tasks/${t.locked}`, 'access-denied', 'You may not update this tasks record.')
  const renamed = await openCalls.clerk('PATCH', url, { payload: { title: `${title}-renamed` }, headers: { 'if-match': '*' } })
  await assertRecord(renamed, 200, TASK_FIELDS_CLERK)
  assert.equal((await openDb.query('SELECT title, note FROM tasks WHERE id = $1', [t.plain])).rows[0].title, `${title}-renamed`)
})

test('a create check: false is 403; a returned filter the new row misses is 403 with no row left; inside is 201', async () => {
  const title = tag('task')
  const count = async (): Promise<number> => (await openDb.query('SELECT count(*)::int AS n FROM tasks WHERE title = $1', [title])).rows[0].n
  assertProblem(await openCalls.clerk('POST', '/api/v1/tasks', { payload: { title, priority: 9 } }), '/api/v1/tasks', 'access-denied', 'You may not create this tasks record.')
  assertProblem(await openCalls.clerk('POST', '/api/v1/tasks', { payload: { title, priority: 4 } }), '/api/v1/tasks', 'access-denied', 'The tasks record as written would be outside what you may write.')
  assert.equal(await count(), 0)
  const created = await openCalls.clerk('POST', '/api/v1/tasks', { payload: { title, priority: 2 } })
  await assertRecord(created, 201, TASK_FIELDS_CLERK)
  assert.equal(await count(), 1)
})

test('a function rule returning a boolean: delete and undelete (which falls back to it) are admin-only', async () => {
  const title = tag('task')
  const t = await seedTasks(title)
  const url = `/api/v1/tasks/${t.plain}`
  assertProblem(await openCalls.clerk('DELETE', url), url, 'access-denied', 'You may not delete tasks records.')
  assert.equal((await openCalls.admin('DELETE', url)).status, 204)
  assertProblem(await openCalls.clerk('POST', `${url}:undelete`), `${url}:undelete`, 'access-denied', 'You may not undelete tasks records.')
  await assertRecord(await openCalls.admin('POST', `${url}:undelete`), 200, TASK_FIELDS_ADMIN)
})

test('equality-map filters from function rules: create fills the owner and refuses another; update and delete targets outside are 404', async () => {
  const title = tag('journal')
  const { rows } = await openDb.query(`INSERT INTO journal (title, owner_id, pinned) VALUES ($1, $2, false), ($1, $3, false), ($1, $2, true) RETURNING id`, [title, clerkId, clerk2Id])
  const [mine, theirs, pinned] = rows.map((r) => String(r.id))
  const fields = ['id', 'title', 'owner_id', 'pinned']
  const listed = await openCalls.clerk('GET', `/api/v1/journal?filter=${encodeURIComponent(`title = ${quote(title)}`)}`)
  assert.deepEqual(listed.body.items.map((i: Record<string, unknown>) => [String(i.id), i.permissions]), [
    [mine, { update: true, delete: true }], [theirs, { update: false, delete: true }], [pinned, { update: true, delete: false }],
  ])
  await assertRecord(await openCalls.clerk('GET', `/api/v1/journal/${theirs}`), 200, fields, { update: false, delete: true, fields: edit(fields, fields) })

  const created = await openCalls.clerk('POST', '/api/v1/journal', { payload: { title: `${title}-new` } })
  await assertRecord(created, 201, fields)
  assert.equal(created.body.owner_id, clerkId)
  const foreign = await openCalls.clerk('POST', '/api/v1/journal', { payload: { title: `${title}-foreign`, owner_id: clerk2Id } })
  assertProblem(foreign, '/api/v1/journal', 'access-denied', 'The journal record as written would be outside what you may write.')
  assert.equal((await openDb.query('SELECT count(*)::int AS n FROM journal WHERE title = $1', [`${title}-foreign`])).rows[0].n, 0)

  assertProblem(await openCalls.clerk('PATCH', `/api/v1/journal/${theirs}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } }), `/api/v1/journal/${theirs}`, 'not-found', 'No journal record has this key.')
  const away = await openCalls.clerk('PATCH', `/api/v1/journal/${mine}`, { payload: { title: 'away', owner_id: clerk2Id }, headers: { 'if-match': '*' } })
  assertProblem(away, `/api/v1/journal/${mine}`, 'access-denied', 'The journal record as written would be outside what you may write.')
  assert.deepEqual((await openDb.query('SELECT title, owner_id FROM journal WHERE id = $1', [mine])).rows[0], { title, owner_id: clerkId })

  assertProblem(await openCalls.clerk('DELETE', `/api/v1/journal/${pinned}`), `/api/v1/journal/${pinned}`, 'not-found', 'No journal record has this key.')
  assert.equal((await openCalls.clerk('DELETE', `/api/v1/journal/${theirs}`)).status, 204)
  assert.equal((await openDb.query('SELECT count(*)::int AS n FROM journal WHERE id = $1', [theirs])).rows[0].n, 0)
})

test('an equality map with a list matches any of its values; an empty list matches no row (not an error)', async () => {
  const clerkList = await openCalls.clerk('GET', '/api/v1/boards?order_by=title')
  assert.equal(clerkList.status, 200, JSON.stringify(clerkList.body))
  assert.deepEqual(clerkList.body.items.map((b: { title: string }) => b.title), ['blue board', 'red board'])
  const adminList = await openCalls.admin('GET', '/api/v1/boards')
  assert.equal(adminList.status, 200, JSON.stringify(adminList.body))
  assert.deepEqual(adminList.body, { items: [], next_page_token: '', total_size_estimate: 0 })
  const { rows } = await openDb.query('SELECT id, team FROM boards ORDER BY id')
  const red = String(rows.find((r) => r.team === 'red').id)
  const green = String(rows.find((r) => r.team === 'green').id)
  assert.equal((await openCalls.clerk('GET', `/api/v1/boards/${red}`)).status, 200)
  assertProblem(await openCalls.clerk('GET', `/api/v1/boards/${green}`), `/api/v1/boards/${green}`, 'not-found', 'No boards record has this key.')
  assertProblem(await openCalls.admin('GET', `/api/v1/boards/${red}`), `/api/v1/boards/${red}`, 'not-found', 'No boards record has this key.')
  const update = await openCalls.admin('PATCH', `/api/v1/boards/${red}`, { payload: { title: 'x' }, headers: { 'if-match': '*' } })
  assertProblem(update, `/api/v1/boards/${red}`, 'not-found', 'No boards record has this key.')
  assert.equal((await openDb.query('SELECT title FROM boards WHERE id = $1', [red])).rows[0].title, 'red board')
})
