// argon2id password hashing. OWASP's baseline (19 MiB, t=2, p=1): ~22 ms per verify on one core
// of the reference 2-core machine, one lane so a burst of sign-ins cannot take both cores.
import argon2 from 'argon2'
import { randomBytes } from 'node:crypto'
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from '../config/accounts.js'

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export async function hashPassword (password: string): Promise<string> {
  return await argon2.hash(password, OPTIONS)
}

export async function verifyPassword (hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password)
  } catch {
    return false
  }
}

// A hash of a random password: verifying against it costs what a real verify costs, so an unknown
// email answers no faster than a wrong password.
let decoy: Promise<string> | undefined
export async function decoyVerify (password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  await verifyPassword(await decoy, password)
  return false
}

/** Why a password is refused (too short or too long), or undefined when it is acceptable. */
export function passwordProblem (password: unknown, policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY): { tooLong: boolean, message: string } | undefined {
  if (typeof password !== 'string') return { tooLong: false, message: 'password is required' }
  const length = [...password].length
  if (length < policy.minLength) return { tooLong: false, message: `password must have at least ${policy.minLength} characters` }
  if (length > policy.maxLength) return { tooLong: true, message: `password must have at most ${policy.maxLength} characters` }
  return undefined
}

/** A random password of 24 URL-safe characters (144 bits). */
export function generatePassword (): string {
  return randomBytes(18).toString('base64url')
}
