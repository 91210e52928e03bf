// Where the console is, in the URL's hash: the server serves one page, so no path of the
// console's can ever meet an API route.
//   #/                      home
//   #/r/orders?filter=…     a resource's list; the query keeps the list's own state (filter, search…)
//   #/r/orders/new          a create form
//   #/r/orders/k/12         one record, by its key as the API's URL writes it (composite: a,b)
//   #/p/overview            a configured page
import { useEffect, useState } from 'preact/hooks'

export type Route =
  | { readonly kind: 'home' }
  | { readonly kind: 'resource', readonly name: string, readonly query: URLSearchParams }
  | { readonly kind: 'new', readonly name: string }
  | { readonly kind: 'record', readonly name: string, readonly key: string }
  | { readonly kind: 'page', readonly name: string }

export function parseRoute (hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2)
  const parts = path.split('/').slice(1).map((part) => { try { return decodeURIComponent(part) } catch { return '\u0000' } })
  if (parts.includes('\u0000')) return { kind: 'home' }
  const [section, name, third, fourth] = parts
  if (name === undefined || name === '') return { kind: 'home' }
  if (section === 'p' && parts.length === 2) return { kind: 'page', name }
  if (section !== 'r') return { kind: 'home' }
  if (parts.length === 2) return { kind: 'resource', name, query: new URLSearchParams(search) }
  if (parts.length === 3 && third === 'new') return { kind: 'new', name }
  if (parts.length === 4 && third === 'k' && fourth !== undefined && fourth !== '') return { kind: 'record', name, key: fourth }
  return { kind: 'home' }
}

// The browser's Back and Forward change the hash before any page code hears of it, so a screen
// with unsaved changes cannot refuse them; it can only undo them. Each history entry the console
// has shown carries its place in the tab's history (`consoleIndex` in history.state), so a held
// move knows how far it went and goes back as far (`history.go(-delta)`). A new entry is the
// console's own navigation (after a save, say), which is never held. A screen holds moves with
// holdHistory, and lets one through with the delta it was given.
interface Held { readonly to: string, readonly delta: number }
let holder: ((held: Held) => void) | undefined

/** Holds every move through the tab's history (Back, Forward) until the returned function is called. */
export function holdHistory (onHeld: (held: Held) => void): () => void {
  holder = onHeld
  return () => { if (holder === onHeld) holder = undefined }
}

function indexOfEntry (): number | undefined {
  const index = (history.state as { consoleIndex?: unknown } | null)?.consoleIndex
  return typeof index === 'number' ? index : undefined
}

function markEntry (index: number): number {
  history.replaceState({ ...(history.state as object | null), consoleIndex: index }, '')
  return index
}

export function useRoute (): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    let current = indexOfEntry() ?? markEntry(0)
    // Set while a held change is undone: the entry shown still is the one it returns to, so the
    // hash change that brings it back is not routed.
    let returning = false
    const changed = (): void => {
      const index = indexOfEntry()
      if (returning) {
        returning = false
        if (index === current) return
      }
      if (holder !== undefined && index !== undefined && index !== current) {
        returning = true
        holder({ to: location.hash, delta: index - current })
        history.go(current - index)
        return
      }
      current = index ?? markEntry(current + 1)
      setRoute(parseRoute(location.hash))
    }
    addEventListener('hashchange', changed)
    return () => { removeEventListener('hashchange', changed) }
  }, [])
  return route
}

export function hrefOf (route: Route): string {
  switch (route.kind) {
    case 'home': return '#/'
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
