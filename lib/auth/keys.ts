// Ed25519 signing keys, private halves stored encrypted with a key derived from AUTH_SECRET.
// The newest key signs; every stored key is published in the JWKS so tokens outlive a rotation.
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import type { JWK } from 'jose'
import { sql } from '../sql/sql.js'
import { rows, query } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import { lockAuthStore, type AuthTables } from './store/migrate.js'
import { decrypt, deriveKey, encrypt } from '../crypto.js'

export interface SigningKey {
  readonly kid: string
  readonly privateKey: KeyObject
}

export interface SigningKeys {
  /** The key that signs new tokens; created on first use. */
  current (): Promise<SigningKey>
  /** Public JWKs of every stored key, for `/api/auth/jwks` and the built-in verifier. */
  publicJwks (): Promise<JWK[]>
}

export class SecretMismatchError extends Error {
  constructor () {
    super('AUTH_SECRET does not match the secret that encrypted the stored signing keys')
    this.name = 'SecretMismatchError'
  }
}

interface KeyRow { id: string, public_key: JWK, private_key: string }

export function signingKeys (pool: Pool, tables: AuthTables, authSecret: string): SigningKeys {
  const encryptionKey = deriveKey(authSecret, 'key-encryption')
  let current: Promise<SigningKey> | undefined

  const open = (row: KeyRow): SigningKey => {
    let jwk: JWK
    try {
      jwk = JSON.parse(decrypt(encryptionKey, row.private_key)) as JWK
    } catch {
      throw new SecretMismatchError()
    }
    return { kid: row.id, privateKey: createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }) }
  }

  const loadOrCreate = async (): Promise<SigningKey> => await withTransaction(pool, {}, async (tx) => {
    await lockAuthStore(tx)
    const [latest] = await rows<KeyRow>(tx, sql`SELECT id, public_key, private_key FROM ${tables.key} ORDER BY created_at DESC, id LIMIT 1`)
    if (latest !== undefined) return open(latest)
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const kid = randomBytes(12).toString('base64url')
    const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' }
    const sealed = encrypt(encryptionKey, JSON.stringify(privateKey.export({ format: 'jwk' })))
    await query(tx, sql`INSERT INTO ${tables.key} (id, public_key, private_key) VALUES (${kid}, ${JSON.stringify(publicJwk)}, ${sealed})`)
    return { kid, privateKey }
  })

  return {
    current: async () => {
      current ??= loadOrCreate().catch((err: unknown) => {
        current = undefined
        throw err
      })
      return await current
    },
    publicJwks: async () => (await rows<KeyRow>(pool, sql`SELECT public_key FROM ${tables.key} ORDER BY created_at DESC, id`)).map((r) => r.public_key),
  }
}
