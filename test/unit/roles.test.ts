import { test } from 'node:test'
import assert from 'node:assert/strict'
import { RoleError, formatRoles, parseRoles, roleSetup, rolesForNewUser, rolesOf } from '../../lib/config/roles.js'

type Roles = Parameters<typeof roleSetup>[0]

test('roleSetup: the list always starts with admin, and the default role is the only other role, if there is one', () => {
  const cases: Array<{ roles: Roles, defaultRole?: string, list: string[], defaultRoleIs: string | undefined }> = [
    { roles: undefined, list: ['admin', 'user'], defaultRoleIs: 'user' },
    { roles: ['admin', 'user'], list: ['admin', 'user'], defaultRoleIs: 'user' },
    { roles: ['user', 'admin'], list: ['admin', 'user'], defaultRoleIs: 'user' },
    { roles: ['editor'], list: ['admin', 'editor'], defaultRoleIs: 'editor' },
    { roles: ['admin', 'editor', 'viewer'], list: ['admin', 'editor', 'viewer'], defaultRoleIs: undefined },
    { roles: ['editor', 'viewer'], list: ['admin', 'editor', 'viewer'], defaultRoleIs: undefined },
    { roles: ['admin', 'editor', 'viewer'], defaultRole: 'viewer', list: ['admin', 'editor', 'viewer'], defaultRoleIs: 'viewer' },
    { roles: ['admin', 'editor'], defaultRole: 'admin', list: ['admin', 'editor'], defaultRoleIs: 'admin' },
    { roles: ['user', 'user', 'admin'], list: ['admin', 'user'], defaultRoleIs: 'user' },
    { roles: ['ops_team', 'read-only', 'r2'], list: ['admin', 'ops_team', 'read-only', 'r2'], defaultRoleIs: undefined },
  ]
  for (const c of cases) {
    const setup = roleSetup(c.roles, c.defaultRole)
    const label = JSON.stringify(c)
    assert.deepEqual(setup.list, c.list, label)
    assert.equal(setup.defaultRole, c.defaultRoleIs, label)
    assert.equal(setup.bundles, undefined, label)
  }
})

test('roleSetup: invalid role names are refused, naming the role', () => {
  for (const bad of ['Admin', 'a b', 'x.y', '', 'USER', 'café']) {
    assert.throws(() => roleSetup(['admin', bad], undefined), (err: unknown) => {
      assert.ok(err instanceof RoleError, `${JSON.stringify(bad)}: ${String(err)}`)
      assert.match(err.message, new RegExp(`'${bad.replace('.', '\\.')}'`))
      return true
    }, JSON.stringify(bad))
  }
})

test('roleSetup: a defaultRole outside the list is refused and the list is shown', () => {
  for (const [roles, defaultRole] of [[['admin', 'user'], 'editor'], [undefined, 'guest'], [['editor'], 'user']] as const) {
    assert.throws(() => roleSetup(roles, defaultRole), (err: unknown) => {
      assert.ok(err instanceof RoleError)
      assert.match(err.message, new RegExp(`defaultRole '${defaultRole}'`))
      assert.match(err.message, /admin/)
      return true
    })
  }
})

test('roleSetup: capability bundles give their keys as the role list', () => {
  const bundles = { manager: ['orders.*', '*.read'], user: ['orders.read.own'] }
  const setup = roleSetup(bundles, undefined)
  assert.deepEqual(setup.list, ['admin', 'manager', 'user'])
  assert.deepEqual(setup.bundles, bundles)
  assert.equal(setup.defaultRole, undefined)

  const withAdmin = roleSetup({ user: ['orders.read.own'], admin: ['*'] }, undefined)
  assert.deepEqual(withAdmin.list, ['admin', 'user'])
  assert.equal(withAdmin.defaultRole, 'user')
  assert.deepEqual(withAdmin.bundles, { user: ['orders.read.own'], admin: ['*'] })

  assert.equal(roleSetup(bundles, 'manager').defaultRole, 'manager')
  assert.throws(() => roleSetup({ Manager: ['*.read'] }, undefined), RoleError)
})

test('parseRoles: comma separated roles, trimmed and deduplicated, all inside the list', () => {
  const setup = roleSetup(['admin', 'editor', 'viewer'], undefined)
  const cases: Array<[string | string[], string[]]> = [
    ['editor', ['editor']],
    ['admin,editor', ['admin', 'editor']],
    ['editor, viewer', ['editor', 'viewer']],
    ['  viewer ,editor  ', ['viewer', 'editor']],
    ['editor,editor,viewer,editor', ['editor', 'viewer']],
    ['editor,,viewer,', ['editor', 'viewer']],
    [['viewer', ' admin '], ['viewer', 'admin']],
    [['editor', 'editor'], ['editor']],
  ]
  for (const [input, expected] of cases) {
    assert.deepEqual(parseRoles(setup, input), expected, JSON.stringify(input))
  }
})

test('parseRoles: an empty role or one outside the list is refused and the choices are listed', () => {
  const setup = roleSetup(['admin', 'editor', 'viewer'], undefined)
  for (const empty of ['', ' ', ',', ' , ', []]) {
    assert.throws(() => parseRoles(setup, empty), (err: unknown) => {
      assert.ok(err instanceof RoleError, JSON.stringify(empty))
      assert.match(err.message, /required/)
      assert.match(err.message, /admin, editor, viewer/)
      return true
    }, JSON.stringify(empty))
  }
  for (const outside of ['ghost', 'editor,ghost', 'Editor', 'admin, user', ['viewer', 'root']]) {
    assert.throws(() => parseRoles(setup, outside), (err: unknown) => {
      assert.ok(err instanceof RoleError, JSON.stringify(outside))
      assert.match(err.message, /not in the role list/)
      assert.match(err.message, /choose from admin, editor, viewer/)
      return true
    }, JSON.stringify(outside))
  }
  assert.throws(() => parseRoles(setup, 'ghost'), /'ghost'/)
})

test('rolesForNewUser: the given roles, else the default role, else an error listing the choices', () => {
  const withDefault = roleSetup(['admin', 'user'], undefined)
  assert.deepEqual(rolesForNewUser(withDefault, undefined), ['user'])
  assert.deepEqual(rolesForNewUser(withDefault, ''), ['user'])
  assert.deepEqual(rolesForNewUser(withDefault, 'admin'), ['admin'])
  assert.deepEqual(rolesForNewUser(withDefault, 'user,admin'), ['user', 'admin'])
  assert.throws(() => rolesForNewUser(withDefault, 'editor'), RoleError)

  const explicitDefault = roleSetup(['admin', 'editor', 'viewer'], 'viewer')
  assert.deepEqual(rolesForNewUser(explicitDefault, undefined), ['viewer'])
  assert.deepEqual(rolesForNewUser(explicitDefault, 'editor'), ['editor'])

  const mustChoose = roleSetup(['admin', 'editor', 'viewer'], undefined)
  assert.deepEqual(rolesForNewUser(mustChoose, 'editor,viewer'), ['editor', 'viewer'])
  for (const missing of [undefined, '', '   ']) {
    assert.throws(() => rolesForNewUser(mustChoose, missing), (err: unknown) => {
      assert.ok(err instanceof RoleError, JSON.stringify(missing))
      assert.match(err.message, /role is required/)
      assert.match(err.message, /editor, viewer/)
      return true
    }, JSON.stringify(missing))
  }
  assert.throws(() => rolesForNewUser(mustChoose, 'ghost'), /choose from admin, editor, viewer/)
})

test('rolesForNewUser: with admin as the only role the error still lists a choice', () => {
  const adminOnly = roleSetup(['admin'], undefined)
  assert.deepEqual(adminOnly.list, ['admin'])
  assert.throws(() => rolesForNewUser(adminOnly, undefined), /choose from admin/)
})

test('formatRoles and rolesOf round-trip the stored comma separated form', () => {
  assert.equal(formatRoles(['admin', 'user']), 'admin,user')
  assert.deepEqual(rolesOf('admin,user'), ['admin', 'user'])
  assert.deepEqual(rolesOf(' admin , user ,'), ['admin', 'user'])
  assert.deepEqual(rolesOf(''), [])
})
