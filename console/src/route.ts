// Where the console is, in the URL's hash (#/r/orders, #/p/overview): the server serves one page,
// so no path of the console's can ever meet an API route.
import { useEffect, useState } from 'preact/hooks'

export type Route = { readonly kind: 'resource' | 'page', readonly name: string } | { readonly kind: 'home' }

export function parseRoute (hash: string): Route {
  const match = /^#\/([rp])\/([^/]+)$/.exec(hash)
  if (match === null) return { kind: 'home' }
  return { kind: match[1] === 'r' ? 'resource' : 'page', name: decodeURIComponent(match[2]!) }
}

export function useRoute (): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const changed = (): void => { setRoute(parseRoute(location.hash)) }
    addEventListener('hashchange', changed)
    return () => { removeEventListener('hashchange', changed) }
  }, [])
  return route
}

export function hrefOf (route: Route): string {
  return route.kind === 'home' ? '#/' : `#/${route.kind === 'resource' ? 'r' : 'p'}/${encodeURIComponent(route.name)}`
}
