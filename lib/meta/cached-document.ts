// A per-caller document as sent: its JSON text once, and an ETag hashing that whole text, so the
// ETag differs between callers exactly where their documents do.
import { createHash } from 'node:crypto'

export interface CachedDocument {
  readonly body: string
  readonly etag: string
}

export function cachedDocument (value: unknown): CachedDocument {
  const body = JSON.stringify(value)
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` }
}
