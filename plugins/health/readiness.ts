// Whether this process can serve: the database answers within a second and a key set is loaded.
// The answer says which check failed, never anything about users or data.
import type { Queryable } from '../../lib/db/query.js'
import type { KeySet } from '../../lib/auth/key-set.js'

export const READY_WITHIN_MS = 1000

export interface Readiness {
  readonly ready: boolean
  /** What is not ready, in a few fixed words. */
  readonly reason?: string
}

async function within<T> (ms: number, work: Promise<T>): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => { resolve('late') }, ms) })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

export async function readiness (db: Queryable, keySet: KeySet): Promise<Readiness> {
  const answered = await within(READY_WITHIN_MS, db.query('SELECT 1').then(() => true, () => false))
  if (answered === 'late') return { ready: false, reason: `the database did not answer within ${READY_WITHIN_MS / 1000} s` }
  if (!answered) return { ready: false, reason: 'the database cannot be reached' }
  const keys = await within(READY_WITHIN_MS, keySet.loaded())
  if (keys !== true) return { ready: false, reason: 'no signing key set is loaded' }
  return { ready: true }
}
