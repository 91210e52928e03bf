// Where routes answer. Custom methods follow a colon (`/orders:search`, `/orders/7:undelete`),
// which the router reads as a parameter unless written twice. Keys are read from the raw URL: the
// router decodes `%2C` into `,`, which would break composite keys.

/** A path for the router: its colons are literal. */
export function routerPath (path: string): string {
  return path.replace(/:/g, '::')
}

/** The path without its query string. */
export function pathOf (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/** The raw (still percent-encoded) key segment of `path` under `collectionPath`, before a custom method of `suffixLength` characters. */
export function rawKeyOf (path: string, collectionPath: string, suffixLength = 0): string {
  const raw = path.slice(collectionPath.length + 1)
  return suffixLength === 0 ? raw : raw.slice(0, -suffixLength)
}
