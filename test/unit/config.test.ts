import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, validateConfig } from '../../lib/config/validate.js'
import { DEFAULT_PUBLIC_URL, TUNNEL_ORIGIN, resolveConfig } from '../../lib/config/resolve.js'
import { CONFIG_FILE_NAMES, discoverConfigFile, loadConfigFile } from '../../lib/config/load.js'

const dir = mkdtempSync(join(tmpdir(), 'tablegate-config-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

/** A fresh sub-directory of the temp dir with the given files. */
let dirs = 0
function folder (files: Record<string, string> = {}): string {
  const path = join(dir, `case-${++dirs}`)
  mkdirSync(path)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text)
  return path
}

function configError (...patterns: RegExp[]) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`)
    for (const pattern of patterns) assert.match(err.message, pattern)
    return true
  }
}

const orders = (title: Record<string, unknown>): unknown => ({
  resources: { orders: { fields: { id: { type: 'bigint', readOnly: true }, title } } },
})

test('an unknown top-level key is named, with the nearest known key suggested', () => {
  assert.throws(() => validateConfig({ singInPerMinute: 5 }),
    configError(/config\.singInPerMinute: unknown key/, /did you mean 'signInPerMinute'\?/))
  assert.throws(() => validateConfig({ rols: ['admin'] }), configError(/config\.rols/, /'roles'/))
  // Every bad key is named in the one error.
  assert.throws(() => validateConfig({ basepath: '/api/v2', zzzzzz: 1 }),
    configError(/config\.basepath: unknown key \(did you mean 'basePath'\?\)/, /config\.zzzzzz: unknown key(?! \()/))
})

test('a bad nested key is named by its full path', () => {
  assert.throws(() => validateConfig(orders({ type: 'string', maxLenght: 200 })),
    configError(/config\.resources\.orders\.fields\.title\.maxLenght: unknown key/, /'maxLength'/))
  assert.throws(() => validateConfig({ resources: { orders: { fields: {}, softDelet: 'deleted_at' } } }),
    configError(/config\.resources\.orders\.softDelet/, /'softDelete'/))
  assert.throws(() => validateConfig({ resources: { orders: { fields: {}, access: { reed: true } } } }),
    configError(/config\.resources\.orders\.access\.reed/, /'read'/))
  assert.throws(() => validateConfig({ scanGuard: { modes: 'warn' } }), configError(/config\.scanGuard\.modes/, /'mode'/))
})

test('a wrong type names the path', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ signInPerMinute: 'five' }, /config\.signInPerMinute:/],
    [{ signInPerMinute: 0 }, /config\.signInPerMinute:/],
    [{ roles: 'admin' }, /config\.roles:/],
    [{ trustedOrigins: [1] }, /config\.trustedOrigins\.0:/],
    [{ scanGuard: { mode: 'loud' } }, /config\.scanGuard\.mode:/],
    [{ defaultAccess: 'maybe' }, /config\.defaultAccess:/],
    [{ basePath: 'api/v1' }, /config\.basePath:/],
    [{ authSchema: 'Auth Store' }, /config\.authSchema:/],
    [orders({ type: 'text' }), /config\.resources\.orders\.fields\.title\.type:/],
    [orders({ type: 'string', maxLength: 'long' }), /config\.resources\.orders\.fields\.title\.maxLength:/],
    [{ resources: { orders: { fields: {}, access: { read: 'yes' } } } }, /config\.resources\.orders\.access\.read:/],
    [{ onUnhandledError: 'log' }, /config\.onUnhandledError:/],
  ]
  for (const [raw, pattern] of cases) {
    assert.throws(() => validateConfig(raw), configError(/^invalid config: /, pattern), JSON.stringify(raw))
  }
  for (const raw of [null, 'config', 42, [], undefined]) {
    assert.throws(() => validateConfig(raw), configError(/config must be an object/), String(raw))
  }
})

test('a value of the wrong kind says what the key takes: the values of an enumeration, the shapes of a union', () => {
  assert.throws(() => validateConfig(orders({ type: 'bool' })),
    configError(/config\.resources\.orders\.fields\.title\.type: must be one of 'string', 'integer', 'bigint', 'number', 'decimal', 'boolean', 'date', 'timestamp', 'uuid', 'json'$/))
  assert.throws(() => validateConfig({ defaultAccess: 'alow' }), configError(/config\.defaultAccess: must be one of 'allow', 'deny' \(did you mean 'allow'\?\)$/))
  assert.throws(() => validateConfig({ resources: { orders: { fields: {}, access: { read: 'yes' } } } }),
    configError(/config\.resources\.orders\.access\.read: expected boolean \| string\[\] \| function \| \{ filter \} \| \{ check \}$/))
  assert.throws(() => validateConfig({ metrics: true }), configError(/config\.metrics: expected false \| \{ role\? \}$/))
})

test('a function is accepted where a rule, validate or onUnhandledError is expected', () => {
  const raw = {
    onUnhandledError: (_err: unknown, _request: unknown) => {},
    resources: {
      orders: {
        fields: { id: { type: 'bigint', readOnly: true }, status: { type: 'string', enum: ['draft', 'locked'] } },
        validate: (_record: unknown) => [],
        access: {
          read: true,
          create: (ctx: { user: { roles: string[] } }) => ctx.user.roles.includes('admin'),
          update: (ctx: { user: { id: string } }) => ({ filter: { owner_id: ctx.user.id } }),
          delete: { check: (record: { status: string }) => record.status !== 'locked' },
          undelete: ['admin'],
          fields: { status: { read: ['admin', 'manager'], write: () => false } },
        },
      },
    },
  }
  assert.equal(validateConfig(raw), raw)
  const resolved = resolveConfig(raw, {})
  assert.equal(resolved.onUnhandledError, raw.onUnhandledError)
  assert.equal(resolved.resources.orders, raw.resources.orders)
})

test('resolveConfig: defaults with an empty environment', () => {
  const resolved = resolveConfig({}, {})
  assert.equal(resolved.databaseUrl, undefined)
  assert.equal(resolved.adminDatabaseUrl, undefined)
  assert.equal(resolved.authSecret, undefined)
  assert.equal(resolved.authSchema, undefined)
  assert.equal(resolved.publicUrl, DEFAULT_PUBLIC_URL)
  assert.equal(resolved.publicUrl, 'http://localhost:5173')
  assert.deepEqual(resolved.trustedOrigins, ['http://localhost:5173', TUNNEL_ORIGIN])
  assert.equal(resolved.basePath, '/api/v1')
  assert.equal(resolved.apiRoot, '/api')
  assert.equal(resolved.signInPerMinute, 5)
  assert.equal(resolved.statementTimeoutMs, 15_000)
  assert.deepEqual(resolved.roles.list, ['admin', 'user'])
  assert.equal(resolved.roles.defaultRole, 'user')
  assert.deepEqual(resolved.resources, {})
})

test('resolveConfig: the environment fills what the config leaves out', () => {
  const env = {
    DATABASE_URL: 'postgres://app@db/app',
    ADMIN_DATABASE_URL: 'postgres://auth@db/auth',
    AUTH_URL: 'https://api.example.com/',
    AUTH_SECRET: 'env-secret-0123456789abcdef',
    TRUSTED_ORIGINS: 'https://a.example.com, https://b.example.com,,',
  }
  const resolved = resolveConfig({}, env)
  assert.equal(resolved.databaseUrl, 'postgres://app@db/app')
  assert.equal(resolved.adminDatabaseUrl, 'postgres://auth@db/auth')
  assert.equal(resolved.publicUrl, 'https://api.example.com')
  assert.equal(resolved.authSecret, 'env-secret-0123456789abcdef')
  assert.deepEqual(resolved.trustedOrigins, ['https://api.example.com', 'https://a.example.com', 'https://b.example.com', TUNNEL_ORIGIN])
  // Pages of ours (callbackURL, CORS) are never on the tunnel wildcard, whoever may post from it.
  assert.deepEqual(resolved.pageOrigins, ['https://api.example.com', 'https://a.example.com', 'https://b.example.com'])

  const explicit = resolveConfig({
    databaseUrl: 'postgres://config/app',
    adminDatabaseUrl: 'postgres://config/auth',
    publicUrl: 'http://localhost:8080',
    authSecret: 'config-secret-0123456789',
    trustedOrigins: ['https://c.example.com'],
  }, env)
  assert.equal(explicit.databaseUrl, 'postgres://config/app')
  assert.equal(explicit.adminDatabaseUrl, 'postgres://config/auth')
  assert.equal(explicit.publicUrl, 'http://localhost:8080')
  assert.equal(explicit.authSecret, 'config-secret-0123456789')
  // Config origins and TRUSTED_ORIGINS add up.
  assert.deepEqual(explicit.trustedOrigins, ['http://localhost:8080', 'https://c.example.com', 'https://a.example.com', 'https://b.example.com', TUNNEL_ORIGIN])

  // AUTH_SECRET has the minimum length of `authSecret`; an explicit secret makes the variable irrelevant.
  assert.throws(() => resolveConfig({}, { AUTH_SECRET: 'too-short' }), configError(/^AUTH_SECRET: .*16/))
  assert.throws(() => resolveConfig({ authSecret: 'too-short' }, {}), configError(/config\.authSecret:/))
  assert.equal(resolveConfig({ authSecret: 'config-secret-0123456789' }, { AUTH_SECRET: 'x' }).authSecret, 'config-secret-0123456789')

  const blank = resolveConfig({}, { DATABASE_URL: '', AUTH_URL: '  ', AUTH_SECRET: '', TRUSTED_ORIGINS: '' })
  assert.equal(blank.databaseUrl, undefined)
  assert.equal(blank.publicUrl, DEFAULT_PUBLIC_URL)
  assert.equal(blank.authSecret, undefined)
  assert.deepEqual(blank.trustedOrigins, ['http://localhost:5173', TUNNEL_ORIGIN])
})

test('resolveConfig: a public URL that is not http(s) is an error naming where it came from', () => {
  for (const publicUrl of ['ftp://example.com', 'not a url', 'localhost:5173', 'javascript:alert(1)']) {
    assert.throws(() => resolveConfig({ publicUrl }, {}), configError(/config\.publicUrl/, /http\(s\)/), publicUrl)
  }
  assert.throws(() => resolveConfig({}, { AUTH_URL: 'ws://example.com' }), configError(/^AUTH_URL/, /ws:\/\/example\.com/))
  assert.equal(resolveConfig({ publicUrl: 'https://x.example.com//' }, {}).publicUrl, 'https://x.example.com')
})

test('resolveConfig: the API root is the parent of the base path', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, '/api'],
    ['/api/v1', '/api'],
    ['/api/v2', '/api'],
    ['/svc/api/v1', '/svc/api'],
  ]
  for (const [basePath, apiRoot] of cases) {
    const resolved = resolveConfig(basePath === undefined ? {} : { basePath }, {})
    assert.equal(resolved.basePath, basePath ?? '/api/v1')
    assert.equal(resolved.apiRoot, apiRoot, String(basePath))
  }
})

test('resolveConfig: a base path where the login or system routes sit is refused, naming them', () => {
  assert.throws(() => resolveConfig({ basePath: '/api/auth' }, {}), /config\.basePath: '\/api\/auth' is where the login routes of '\/api' sits: choose another last segment, such as '\/api\/v1'/)
  for (const basePath of ['/api/meta', '/svc/docs', '/openapi.json']) assert.throws(() => resolveConfig({ basePath }, {}), /config\.basePath: .* route of/, basePath)
})

test('resolveConfig: role errors are config errors', () => {
  assert.throws(() => resolveConfig({ roles: ['admin', 'Editor'] }, {}), configError(/config\.roles/, /'Editor'/))
  assert.throws(() => resolveConfig({ roles: ['admin', 'user'], defaultRole: 'guest' }, {}), configError(/'guest'/))
  const bundles = resolveConfig({ roles: { manager: ['orders.*'], user: ['orders.read.own'] } }, {})
  assert.deepEqual(bundles.roles.list, ['admin', 'manager', 'user'])
  assert.equal(bundles.roles.defaultRole, undefined)
  assert.equal(resolveConfig({ roles: ['editor'] }, {}).roles.defaultRole, 'editor')
})

test('resolveConfig: organizations are off unless given; `{}` gives the defaults; their roles are their own', () => {
  assert.equal(resolveConfig({}, {}).organizations, undefined)
  const onInvitation = async (): Promise<void> => {}
  assert.deepEqual({ ...resolveConfig({ organizations: {} }, {}).organizations }, {
    roles: ['owner', 'admin', 'member'], creatorRole: 'owner', allowUserToCreate: true, invitationExpiresIn: 172_800, onInvitation: undefined, roleCapabilities: undefined,
  })
  const given = resolveConfig({ roles: ['admin', 'user'], organizations: { roles: ['owner', 'billing'], creatorRole: 'billing', allowUserToCreate: false, invitationExpiresIn: 3600, onInvitation } }, {})
  assert.deepEqual({ ...given.organizations }, { roles: ['owner', 'billing'], creatorRole: 'billing', allowUserToCreate: false, invitationExpiresIn: 3600, onInvitation, roleCapabilities: undefined })
  const bundled = resolveConfig({ roles: { user: ['orders.read'] }, organizations: { roleCapabilities: { member: ['orders.create'], owner: ['orders.*'] } } }, {})
  assert.deepEqual(bundled.organizations?.roleCapabilities, { member: ['orders.create'], owner: ['orders.*'] })
  // Organization roles are not service roles: neither list gains the other's names.
  assert.deepEqual(given.roles.list, ['admin', 'user'])
})

test('resolveConfig: organization errors name the path', () => {
  assert.throws(() => resolveConfig({ organizations: { roles: ['admin', 'member'] } }, {}), configError(/^config\.organizations\.roles: must include 'owner'/, /admin, member/))
  assert.throws(() => resolveConfig({ organizations: { creatorRole: 'boss' } }, {}), configError(/^config\.organizations\.creatorRole: 'boss' is not one of organizations\.roles \(owner, admin, member\)$/))
  assert.throws(() => resolveConfig({ organizations: { roles: ['owner', 'Team Lead'] } }, {}), configError(/^config\.organizations\.roles: 'Team Lead' is not a valid role name/))
  assert.throws(() => resolveConfig({ organizations: { roles: ['owner', 'member', 'owner'] } }, {}), configError(/'owner' is listed twice/))
  assert.throws(() => resolveConfig({ organizations: { roles: [] } }, {}), configError(/config\.organizations\.roles/))
  assert.throws(() => resolveConfig({ organizations: { invitationExpiresIn: 0 } }, {}), configError(/config\.organizations\.invitationExpiresIn/))
  assert.throws(() => resolveConfig({ organizations: { rols: ['owner'] } }, {}), configError(/config\.organizations\.rols: unknown key \(did you mean 'roles'\?\)/))
  assert.throws(() => resolveConfig({ organizations: { onInvitation: 'mail' } }, {}), configError(/config\.organizations\.onInvitation/))
  assert.throws(() => resolveConfig({ organizations: {}, verifier: { jwksUrl: 'https://auth.example.com/jwks' } }, {}), configError(/^config\.organizations: organizations need the built-in login/))
  assert.throws(() => resolveConfig({ organizations: {}, tenant: 'acme' }, {}), configError(/^config\.organizations: the tenant is the caller's active organization/))
  // Capabilities per organization role add to the service roles' bundles: a role list has none.
  assert.throws(() => resolveConfig({ roles: ['admin', 'user'], organizations: { roleCapabilities: { member: ['orders.read'] } } }, {}),
    configError(/^config\.organizations\.roleCapabilities: needs config\.roles given as capability bundles/))
  assert.throws(() => resolveConfig({ roles: { user: [] }, organizations: { roleCapabilities: { boss: ['orders.read'] } } }, {}),
    configError(/^config\.organizations\.roleCapabilities: 'boss' is not one of organizations\.roles \(owner, admin, member\)$/))
  assert.throws(() => resolveConfig({ roles: { user: [] }, organizations: { roleCapabilities: { member: 'orders.read' } } }, {}), configError(/config\.organizations\.roleCapabilities\.member/))
})

test('loadConfigFile loads .json, .mjs, .js and .ts configs', async () => {
  const path = folder({
    'a.json': JSON.stringify({ roles: ['admin', 'user'], signInPerMinute: 7 }),
    'b.mjs': 'export default { roles: [\'admin\', \'user\'], onUnhandledError: (err) => { void err } }\n',
    'c.ts': 'const roles: string[] = [\'admin\', \'user\']\nexport default { roles, statementTimeoutMs: 2000 as number }\n',
    'd.mts': 'interface Shape { roles: string[] }\nconst config: Shape = { roles: [\'admin\', \'editor\'] }\nexport default config\n',
  })
  // A `.js` config is ESM inside a `"type": "module"` package, as in a project that uses tablegate.
  const esm = folder({ 'package.json': '{ "type": "module" }', 'e.js': 'export default { basePath: \'/api/v2\' }\n', 'f.ts': 'export default { roles: [\'admin\', \'user\'] }\n' })
  assert.deepEqual(await loadConfigFile(join(path, 'a.json')), { roles: ['admin', 'user'], signInPerMinute: 7 })
  const mjs = await loadConfigFile(join(path, 'b.mjs')) as { roles: string[], onUnhandledError: unknown }
  assert.deepEqual(mjs.roles, ['admin', 'user'])
  assert.equal(typeof mjs.onUnhandledError, 'function')
  assert.equal(resolveConfig(mjs, {}).onUnhandledError, mjs.onUnhandledError)
  assert.deepEqual(await loadConfigFile(join(path, 'c.ts')), { roles: ['admin', 'user'], statementTimeoutMs: 2000 })
  assert.deepEqual(await loadConfigFile(join(path, 'd.mts')), { roles: ['admin', 'editor'] })
  assert.deepEqual(resolveConfig(await loadConfigFile(join(esm, 'e.js')), {}).apiRoot, '/api')
  assert.deepEqual(await loadConfigFile(join(esm, 'f.ts')), { roles: ['admin', 'user'] })
})

test('loadConfigFile: broken or unsupported files are config errors naming the file', async () => {
  const path = folder({
    'broken.json': '{ "roles": [',
    'empty.mjs': 'export const roles = [\'admin\']\n',
    'throws.mjs': 'throw new Error(\'boom\')\n',
    'config.yaml': 'roles: [admin]\n',
  })
  await assert.rejects(loadConfigFile(join(path, 'broken.json')), configError(/cannot load config .*broken\.json/))
  await assert.rejects(loadConfigFile(join(path, 'empty.mjs')), configError(/no default export/))
  await assert.rejects(loadConfigFile(join(path, 'throws.mjs')), configError(/throws\.mjs: boom/))
  await assert.rejects(loadConfigFile(join(path, 'config.yaml')), configError(/config\.yaml/, /unsupported extension '\.yaml'/))
})

test('discoverConfigFile: --config, else TABLEGATE_CONFIG, else ./tablegate.config.*', () => {
  const path = folder({
    'explicit.json': '{}',
    'from-env.json': '{}',
    'tablegate.config.json': '{}',
    'tablegate.config.mjs': 'export default {}\n',
  })
  assert.equal(discoverConfigFile('explicit.json', { TABLEGATE_CONFIG: 'from-env.json' }, path), join(path, 'explicit.json'))
  assert.equal(discoverConfigFile(join(path, 'explicit.json'), {}, '/'), join(path, 'explicit.json'))
  assert.equal(discoverConfigFile(undefined, { TABLEGATE_CONFIG: 'from-env.json' }, path), join(path, 'from-env.json'))
  assert.equal(discoverConfigFile(undefined, {}, path), join(path, 'tablegate.config.mjs'))
  assert.equal(discoverConfigFile(undefined, { TABLEGATE_CONFIG: '' }, path), join(path, 'tablegate.config.mjs'))
  writeFileSync(join(path, 'tablegate.config.ts'), 'export default {}\n')
  assert.equal(discoverConfigFile(undefined, {}, path), join(path, 'tablegate.config.ts'))
  assert.deepEqual(CONFIG_FILE_NAMES, ['tablegate.config.ts', 'tablegate.config.mts', 'tablegate.config.js', 'tablegate.config.mjs', 'tablegate.config.json'])

  const empty = folder()
  assert.equal(discoverConfigFile(undefined, {}, empty), undefined)
})

test('discoverConfigFile: a missing explicit or TABLEGATE_CONFIG file is an error naming it', () => {
  const path = folder({ 'tablegate.config.json': '{}', 'from-env.json': '{}' })
  assert.throws(() => discoverConfigFile('nope.json', {}, path), configError(/config file not found: nope\.json/))
  // An explicit file that is missing is not replaced by the environment's or the directory's.
  assert.throws(() => discoverConfigFile('nope.json', { TABLEGATE_CONFIG: 'from-env.json' }, path), configError(/nope\.json/))
  assert.throws(() => discoverConfigFile(undefined, { TABLEGATE_CONFIG: 'gone.ts' }, path), configError(/config file not found: gone\.ts/))
})

test('resolveConfig: pool sizes from poolSize or DATABASE_POOL_SIZE, each pool\'s own from poolSizes; the pooler from databasePooler or DATABASE_POOLER', () => {
  assert.deepEqual(resolveConfig({}, {}).poolSizes, { write: 10, read: 10, auth: 3 })
  assert.equal(resolveConfig({}, {}).databasePooler, 'none')
  assert.deepEqual(resolveConfig({ poolSize: 4 }, {}).poolSizes, { write: 4, read: 4, auth: 3 })
  assert.deepEqual(resolveConfig({ poolSize: 4, poolSizes: { read: 30, auth: 1 } }, {}).poolSizes, { write: 4, read: 30, auth: 1 })
  assert.deepEqual(resolveConfig({}, { DATABASE_POOL_SIZE: ' 6 ' }).poolSizes, { write: 6, read: 6, auth: 3 })
  assert.deepEqual(resolveConfig({ poolSize: 2 }, { DATABASE_POOL_SIZE: '6' }).poolSizes, { write: 2, read: 2, auth: 3 })
  assert.equal(resolveConfig({}, { DATABASE_POOLER: 'transaction' }).databasePooler, 'transaction')
  assert.equal(resolveConfig({ databasePooler: 'none' }, { DATABASE_POOLER: 'transaction' }).databasePooler, 'none')
  for (const size of ['0', '1.5', 'ten', '1001']) {
    assert.throws(() => resolveConfig({}, { DATABASE_POOL_SIZE: size }), configError(new RegExp(`DATABASE_POOL_SIZE: '${size.replace('.', '\\.')}' is not a whole number of connections from 1 to 1000`)))
  }
  assert.throws(() => resolveConfig({}, { DATABASE_POOLER: 'session' }), configError(/DATABASE_POOLER: 'session' is not 'transaction' \(a transaction pooler such as PgBouncer\) or 'none'/))
  assert.throws(() => validateConfig({ poolSizes: { writes: 3 } }), configError(/config\.poolSizes\.writes: unknown key \(did you mean 'write'\?\)/))
  assert.throws(() => validateConfig({ databasePooler: 'session' }), configError(/databasePooler/))
})
