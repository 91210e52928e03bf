// The verifier's key set: read once, again every `refreshMs` (so removed keys stop verifying), and
// again when a token names an unknown `kid` — at most once per `minReloadMs`, however many such
// tokens arrive, so a flood of made-up kids cannot hammer the key source.
import { importJWK, type JWK, type JWTHeaderParameters } from 'jose'

export interface KeySetOptions {
  readonly refreshMs?: number
  readonly minReloadMs?: number
  /** Milliseconds clock; tests pass a fake one. */
  readonly now?: () => number
}

export type VerificationKey = Awaited<ReturnType<typeof importJWK>>

export class KeySetUnavailableError extends Error {
  constructor (cause: unknown) {
    super('the signing key set could not be loaded', { cause })
    this.name = 'KeySetUnavailableError'
  }
}

export interface KeySet {
  /** The key for a token header, or undefined when no key of the set matches. */
  keyFor (header: JWTHeaderParameters): Promise<VerificationKey | undefined>
  /**
   * Whether a key `keyFor` gave is still in the set (refreshed on schedule): cached tokens ask
   * this. A key is known by its material, not its `kid`, so tokens without one are cached too.
   */
  holds (key: VerificationKey): Promise<boolean>
  /** Whether a set of keys is loaded (read now if it is due): readiness asks this. */
  loaded (): Promise<boolean>
  /** How many times the key source was read (for tests and metrics). */
  readonly loads: number
}

/** A key's identity: its id and public material (a set may reuse a kid for a new key, or give none). */
function identity (jwk: JWK): string {
  return JSON.stringify([jwk.kid, jwk.kty, jwk.crv, jwk.x, jwk.y, jwk.n, jwk.e, jwk.k])
}

export function createKeySet (load: () => Promise<JWK[]>, options: KeySetOptions = {}): KeySet {
  const refreshMs = options.refreshMs ?? 600_000
  const minReloadMs = options.minReloadMs ?? 30_000
  const now = options.now ?? Date.now
  let jwks: JWK[] | undefined
  let loadedAt = -Infinity
  let attemptedAt = -Infinity
  let inflight: Promise<void> | undefined
  let loads = 0
  // Imported keys by the key's identity and alg; kept across refreshes while the key stays in
  // the set, so a refresh that changes nothing leaves cached tokens valid.
  const imported = new Map<string, Promise<VerificationKey>>()
  const live = new Map<VerificationKey, string>()

  const reload = async (): Promise<void> => {
    inflight ??= (async () => {
      attemptedAt = now()
      loads++
      try {
        const next = await load()
        jwks = next
        loadedAt = now()
        const kept = new Set(next.map(identity))
        for (const [cacheKey] of imported) if (!kept.has(cacheKey.slice(0, cacheKey.lastIndexOf('\0')))) imported.delete(cacheKey)
        for (const [key, id] of live) if (!kept.has(id)) live.delete(key)
      } finally {
        inflight = undefined
      }
    })()
    await inflight
  }

  const match = (header: JWTHeaderParameters): JWK | undefined => {
    const usable = (jwks ?? []).filter((k) => (k.alg === undefined || k.alg === header.alg) && k.use !== 'enc')
    if (header.kid !== undefined) return usable.find((k) => k.kid === header.kid)
    return usable.length === 1 ? usable[0] : undefined
  }

  // A failed refresh is retried no sooner than `minReloadMs` later: a source that is down must
  // not be read (and waited for) on every lookup while the last good set still verifies.
  const refreshIfDue = async (): Promise<void> => {
    if (jwks !== undefined && (now() - loadedAt < refreshMs || now() - attemptedAt < minReloadMs)) return
    try {
      await reload()
    } catch (err) {
      // A failed refresh keeps the last good set until the next attempt; with none, fail closed.
      if (jwks === undefined) throw new KeySetUnavailableError(err)
    }
  }

  return {
    get loads () { return loads },
    loaded: async () => {
      await refreshIfDue().catch(() => {})
      return jwks !== undefined && jwks.length > 0
    },
    holds: async (key) => {
      await refreshIfDue()
      return live.has(key)
    },
    keyFor: async (header) => {
      await refreshIfDue()
      let jwk = match(header)
      if (jwk === undefined && now() - attemptedAt >= minReloadMs) {
        try {
          await reload()
        } catch {
          return undefined
        }
        jwk = match(header)
      }
      if (jwk === undefined) return undefined
      const id = identity(jwk)
      const cacheKey = `${id}\0${header.alg}`
      let key = imported.get(cacheKey)
      if (key === undefined) {
        key = importJWK(jwk, header.alg).then((imports) => {
          live.set(imports, id)
          return imports
        })
        imported.set(cacheKey, key)
      }
      return await key
    },
  }
}
