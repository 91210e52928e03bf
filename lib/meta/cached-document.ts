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

/** Whether `If-None-Match` names the document's ETag (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function notModified (ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}
