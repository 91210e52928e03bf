import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ConfigError } from '../../lib/config/validate.js'
import { resolveConfig } from '../../lib/config/resolve.js'

function configError (pattern: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`)
    assert.match(err.message, pattern)
    return true
  }
}

const onSend = async (): Promise<void> => {}

test('resolveConfig: accounts are the administrator\'s alone unless configured', () => {
  const { accounts } = resolveConfig({}, {})
  assert.deepEqual({ ...accounts, passwordPolicy: { ...accounts.passwordPolicy } }, {
    signUp: false,
    onExistingUserSignUp: undefined,
    emailVerification: undefined,
    passwordReset: undefined,
    passwordPolicy: { minLength: 12, maxLength: 128 },
  })
})

test('resolveConfig: sign-up, verification, reset and the policy as given, with their defaults', () => {
  const { accounts } = resolveConfig({
    organizations: {},
    signUp: 'invitation',
    emailVerification: { required: true, onSend },
    passwordReset: { onSend },
    passwordPolicy: { minLength: 16 },
  }, {})
  assert.equal(accounts.signUp, 'invitation')
  assert.deepEqual({ ...accounts.emailVerification }, { required: true, onSend })
  assert.deepEqual({ ...accounts.passwordReset }, { expiresIn: 3600, onSend })
  assert.deepEqual({ ...accounts.passwordPolicy }, { minLength: 16, maxLength: 128 })
  assert.equal(resolveConfig({ signUp: 'open', emailVerification: { onSend } }, {}).accounts.emailVerification?.required, false)
})

test('resolveConfig: account settings that cannot work are refused, saying why', () => {
  assert.throws(() => resolveConfig({ signUp: 'anyone' }, {}), configError(/signUp/))
  assert.throws(() => resolveConfig({ signUp: 'invitation' }, {}), configError(/^config\.signUp: 'invitation' .* needs config\.organizations/))
  assert.throws(() => resolveConfig({ signUp: 'invitation', organizations: {} }, {}), configError(/^config\.signUp: 'invitation' needs config\.emailVerification/))
  assert.throws(() => resolveConfig({ emailVerification: { required: true, onSend } }, {}), configError(/^config\.emailVerification\.required: .*config\.signUp is false/))
  assert.throws(() => resolveConfig({ emailVerification: { required: true } }, {}), configError(/emailVerification/))
  assert.throws(() => resolveConfig({ passwordReset: { onSend, expiresIn: 10 } }, {}), configError(/passwordReset/))
  assert.throws(() => resolveConfig({ passwordPolicy: { minLength: 6 } }, {}), configError(/passwordPolicy/))
  assert.throws(() => resolveConfig({ signUp: 'open', roles: ['admin', 'clerk', 'manager'] }, {}), configError(/^config\.signUp: .* set config\.defaultRole \(one of clerk, manager\)$/))
  assert.throws(() => resolveConfig({ signUp: 'open', defaultRole: 'admin' }, {}), configError(/^config\.signUp: .*besides admin/))
  assert.equal(resolveConfig({ signUp: 'open', roles: ['admin', 'clerk', 'manager'], defaultRole: 'clerk' }, {}).accounts.signUp, 'open')
  assert.throws(() => resolveConfig({ passwordPolicy: { minLength: 100, maxLength: 64 } }, {}), configError(/^config\.passwordPolicy: minLength \(100\) is more than maxLength \(64\)$/))
  assert.throws(() => resolveConfig({ signUp: 'open', verifier: { jwksUrl: 'https://auth.example.com/jwks', issuer: 'https://auth.example.com', audience: 'x' } }, {}), configError(/need the built-in login/))
})
