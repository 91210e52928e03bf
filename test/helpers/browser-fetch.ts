// A fetch that keeps cookies as a browser does (Set-Cookie stores, Max-Age=0 deletes), sends the
// Origin a page on the public URL sends, and names its client address in x-forwarded-for, for
// driving better-auth's own client against a listening tablegate.
export interface BrowserFetch {
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>
  readonly jar: Map<string, string>
}

export function browserFetch (origin: string, address: string): BrowserFetch {
  const jar = new Map<string, string>()
  const cookieFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers)
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '))
    headers.set('origin', origin)
    headers.set('x-forwarded-for', address)
    const response = await fetch(input, { ...init, headers })
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';')
      const name = pair.slice(0, pair.indexOf('='))
      if (attributes.some((a) => /^\s*max-age=0$/i.test(a))) jar.delete(name)
      else jar.set(name, pair.slice(name.length + 1))
    }
    return response
  }
  return { fetch: cookieFetch, jar }
}
