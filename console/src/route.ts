// Where the console is, in the URL's hash: the server serves one page, so no path of the
// console's can ever meet an API route.
//   #/                      home
//   #/r/orders?filter=…     a resource's list; the query keeps the list's own state (filter, search…)
//   #/r/orders/new          a create form
//   #/r/orders/k/12         one record, by its key as the API's URL writes it (composite: a,b)
//   #/p/overview            a configured page
//   #/account               the caller's own account: password, sessions
//   #/forgot-password       asks for a link to set a new password
//   #/reset-password        where that link lands (its token in the URL's query, before the hash)
//   #/verified              where a verification link lands
// Following the hash as it changes is history.ts's: this module stays free of the DOM and of
// Preact, so the unit tests import it in Node.
export type Route =
  | { readonly kind: 'home' }
  | { readonly kind: 'resource', readonly name: string, readonly query: URLSearchParams }
  | { readonly kind: 'new', readonly name: string }
  | { readonly kind: 'record', readonly name: string, readonly key: string }
  | { readonly kind: 'page', readonly name: string }
  | { readonly kind: 'account' | 'forgot-password' | 'reset-password' | 'verified' }

const SCREENS = ['account', 'forgot-password', 'reset-password', 'verified'] as const

export function parseRoute (hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2)
  const parts = path.split('/').slice(1).map((part) => { try { return decodeURIComponent(part) } catch { return '\u0000' } })
  if (parts.includes('\u0000')) return { kind: 'home' }
  const [section, name, third, fourth] = parts
  const screen = SCREENS.find((kind) => kind === section)
  if (screen !== undefined && parts.length === 1) return { kind: screen }
  if (name === undefined || name === '') return { kind: 'home' }
  if (section === 'p' && parts.length === 2) return { kind: 'page', name }
  if (section !== 'r') return { kind: 'home' }
  if (parts.length === 2) return { kind: 'resource', name, query: new URLSearchParams(search) }
  if (parts.length === 3 && third === 'new') return { kind: 'new', name }
  if (parts.length === 4 && third === 'k' && fourth !== undefined && fourth !== '') return { kind: 'record', name, key: fourth }
  return { kind: 'home' }
}

export function hrefOf (route: Route): string {
  switch (route.kind) {
    case 'home': return '#/'
    case 'account': case 'forgot-password': case 'reset-password': case 'verified': return `#/${route.kind}`
    case 'page': return `#/p/${encodeURIComponent(route.name)}`
    case 'new': return `#/r/${encodeURIComponent(route.name)}/new`
    case 'record': return `#/r/${encodeURIComponent(route.name)}/k/${encodeURIComponent(route.key)}`
    case 'resource': {
      const query = route.query.toString()
      return `#/r/${encodeURIComponent(route.name)}${query === '' ? '' : `?${query}`}`
    }
  }
}

/** A record's key as its URL writes it: the key fields' values, each percent-encoded, joined by `,`. */
export function keyOf (record: Readonly<Record<string, unknown>>, key: readonly string[]): string {
  return key.map((field) => encodeURIComponent(String(record[field]))).join(',')
}

export function recordHref (resource: string, record: Readonly<Record<string, unknown>>, key: readonly string[]): string {
  return hrefOf({ kind: 'record', name: resource, key: keyOf(record, key) })
}
