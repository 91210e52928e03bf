// Keys in resource paths. The router decodes `%2C` into `,`, which would break composite keys, so
// the key is read from the raw URL; `:undelete` is a custom method after the key.

export const UNDELETE = ':undelete'

/** The raw (still percent-encoded) key segment of `url` under `collectionPath`, before `suffix`. */
export function rawKeyOf (url: string, collectionPath: string, suffix = ''): string {
  const path = url.split('?')[0]!
  const raw = path.slice(collectionPath.length + 1)
  return suffix === '' ? raw : raw.slice(0, -suffix.length)
}

/** Whether a POST to a record path names the `:undelete` method. */
export function isUndelete (url: string): boolean {
  return url.split('?')[0]!.endsWith(UNDELETE)
}
