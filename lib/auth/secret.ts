// Keys derived from AUTH_SECRET: one per purpose, so the cookie signer never shares a key with
// the encryption of the signing keys.
import { hkdfSync, createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto'

export function deriveKey (secret: string, purpose: 'cookie' | 'key-encryption' | 'page-token'): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'tablegate', purpose, 32))
}

// Every list page encrypts a page token: random IVs are drawn 256 at a time, not one call each.
const IV_BYTES = 12
const ivPool = Buffer.alloc(IV_BYTES * 256)
let ivOffset = ivPool.length

function nextIv (): Buffer {
  if (ivOffset === ivPool.length) {
    randomFillSync(ivPool)
    ivOffset = 0
  }
  ivOffset += IV_BYTES
  return ivPool.subarray(ivOffset - IV_BYTES, ivOffset)
}

/** AES-256-GCM; the text form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt (key: Buffer, plaintext: string): string {
  const iv = nextIv()
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = cipher.update(plaintext, 'utf8').toString('base64url')
  // GCM is a stream mode: final() adds no bytes, it computes the tag.
  cipher.final()
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body}`
}

export function decrypt (key: Buffer, text: string): string {
  const [version, iv, tag, body] = text.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('unknown encrypted key format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
