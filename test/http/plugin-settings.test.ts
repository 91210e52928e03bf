// What a plugin reads of the settings: the keys of an explicit list, frozen through, and nothing
// else: no secret, no connection string, no function of the config, and no setting added to the
// resolved config later unless it is added to that list.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { freshDatabase } from '../helpers/db.js'
import { buildApp, TEST_SECRET } from '../helpers/app.js'
import { runtimeOf } from '../../lib/runtime.js'
import type { TablegateSettings } from '../../lib/index.js'

const databaseUrl = await freshDatabase()
const adminDatabaseUrl = await freshDatabase()
let seen: TablegateSettings | undefined
const peek = fp(async (app: FastifyInstance) => { seen = app.tablegate.config }, { name: 'settings-peek', fastify: '5.x', dependencies: ['tablegate'] })
const app = await buildApp({
  databaseUrl,
  databaseReadUrl: databaseUrl,
  adminDatabaseUrl,
  publicUrl: 'https://api.example.com',
  roles: ['member'],
  onUnhandledError: () => {},
  plugins: [peek],
})
const settings = seen!

test('a plugin reads exactly the listed settings, with their resolved values', () => {
  assert.deepEqual(Object.keys(settings).sort(), [
    'apiRoot', 'basePath', 'bodyLimit', 'databasePooler', 'defaultAccess', 'exportTimeoutMs', 'exportsPerCaller',
    'metrics', 'migrateOnStart', 'pageOrigins', 'publicUrl', 'roles', 'scanGuard', 'serverTiming', 'statementTimeoutMs', 'tenant', 'textMaxLength',
  ])
  assert.equal(settings.publicUrl, 'https://api.example.com')
  assert.equal(settings.basePath, '/api/v1')
  assert.deepEqual(settings.roles.list, ['admin', 'member'])
  assert.deepEqual(settings.scanGuard, { mode: 'reject', seqScanRows: 10_000 })
})

test('no secret, connection string, config function or login internal reaches a plugin', () => {
  for (const key of ['config', 'authSecret', 'databaseUrl', 'databaseReadUrl', 'adminDatabaseUrl', 'onUnhandledError', 'plugins', 'presenters',
    'pluginMigrations', 'resources', 'dataDir', 'authSchema', 'verifier', 'trustedOrigins', 'signInPerMinute', 'poolSizes', 'migrations']) {
    assert.equal(key in settings, false, key)
  }
  const text = JSON.stringify(settings)
  for (const hidden of [TEST_SECRET, databaseUrl, adminDatabaseUrl, 'postgres']) assert.equal(text.includes(hidden), false, hidden)
})

test('the settings are frozen through: a plugin cannot change them, nor the app\'s own', () => {
  assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.roles) && Object.isFrozen(settings.roles.list) && Object.isFrozen(settings.scanGuard) && Object.isFrozen(settings.pageOrigins))
  assert.throws(() => { (settings.roles.list as string[]).push('root') }, TypeError)
  assert.throws(() => { (settings.scanGuard as { mode: string }).mode = 'off' }, TypeError)
  assert.deepEqual(runtimeOf(app).config.roles.list, ['admin', 'member'])
  assert.equal(runtimeOf(app).config.scanGuard.mode, 'reject')
})
