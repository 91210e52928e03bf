// A record screen kept up to date by the change feed (change.ts): the filter that follows one
// record, and what a change means for what the screen shows. A change is weighed against the
// record read again, not against the event alone: the feed starts before the record is read, so
// an event may be older than the record on screen, and only a read says what is there now.
import type { Change } from './change.js'
import { condition } from './list-state.js'
import type { FieldMeta } from './meta.js'

/**
 * The filter that follows one record: its key fields equal to the parts of its key as the URL
 * writes it (`id = 5`, `region = "north" AND n = 2`); undefined for a key that is not one.
 */
export function keyFilter (key: readonly string[], fields: Readonly<Record<string, FieldMeta>>, recordKey: string): string | undefined {
  const parts = recordKey.split(',')
  if (parts.length !== key.length) return undefined
  const conditions: string[] = []
  for (const [i, field] of key.entries()) {
    let value: string
    try { value = decodeURIComponent(parts[i]!) } catch { return undefined }
    conditions.push(condition(field, value, fields[field]))
  }
  return conditions.join(' AND ')
}

/** What the screen shows of the record, or what a read found: its ETag and whether it is deleted. */
export interface Version {
  readonly etag: unknown
  readonly deleted: boolean
}

/**
 * Whether a change needs a look at all: one that brings an ETag the screen knows changes nothing,
 * unless the screen shows the record deleted (an ETag need not tell a deleted record from the
 * record restored: a hash of the fields the caller reads, where they do not read the marker).
 */
export function isNews (change: Change, shown: Version, seen: ReadonlySet<unknown>): boolean {
  return !('record' in change) || shown.deleted || !seen.has(change.record.etag)
}

/**
 * What the record read after a change (`now`; undefined: it is no longer the caller's to read)
 * means beside what the screen shows. `seen` holds every ETag the screen has shown or its own
 * writes made, so the user's own save never passes for someone else's.
 * - `known`: nothing new;
 * - `saved`: someone else saved it (or restored it);
 * - `deleted`: someone else deleted it, and the caller still reads it as deleted;
 * - `gone`: deleted for good, or moved out of the caller's reach.
 */
export function newsOf (now: Version | undefined, shown: Version, seen: ReadonlySet<unknown>): 'known' | 'saved' | 'deleted' | 'gone' {
  if (now === undefined) return 'gone'
  if (now.deleted) return shown.deleted ? 'known' : 'deleted'
  return !shown.deleted && seen.has(now.etag) ? 'known' : 'saved'
}
