// Keys derived from AUTH_SECRET: one per purpose, so the cookie signer never shares a key with
// the encryption of the signing keys.
import { hkdfSync, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

export function deriveKey (secret: string, purpose: 'cookie' | 'key-encryption' | 'page-token'): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'tablegate', purpose, 32))
}

/** AES-256-GCM; the text form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt (key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv, cipher.getAuthTag(), body].map((p) => typeof p === 'string' ? p : p.toString('base64url')).join('.')
}

export function decrypt (key: Buffer, text: string): string {
  const [version, iv, tag, body] = text.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('unknown encrypted key format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
