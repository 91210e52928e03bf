// Scalar's reference pages, loaded on their first request. The package carries its browser bundle
// as a 4 MB string literal: imported at start, it held 35 MB of every process's memory (23 MB of
// heap), though most processes never serve the page. Its routes run in an app of their own, built
// once on the first request and answered through inject, so what the pages are stays Scalar's.
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'

/** What Scalar's plugin takes: where its pages live, and the page's configuration. */
export interface ReferenceOptions {
  readonly routePrefix: `/${string}`
  readonly configuration: Record<string, unknown>
}

export interface Reference {
  /** The answer of Scalar's routes to a GET of `url` (a path under the prefix). */
  get (url: string): Promise<LightMyRequestResponse>
  close (): Promise<void>
}

// Headers that belong to the inner answer's own transfer, not to the page.
const TRANSFER_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])

/** The headers of an inner answer worth passing on. */
export function pageHeaders (answer: LightMyRequestResponse): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && !TRANSFER_HEADERS.has(name)) headers[name] = typeof value === 'number' ? String(value) : value
  }
  return headers
}

export function lazyReference (options: ReferenceOptions): Reference {
  let app: Promise<FastifyInstance> | undefined
  const open = async (): Promise<FastifyInstance> => {
    const { default: scalar } = await import('@scalar/fastify-api-reference')
    const inner = Fastify({ logger: false })
    await inner.register(scalar, options)
    await inner.ready()
    return inner
  }
  return {
    get: async (url) => {
      app ??= open().catch((err: unknown) => {
        app = undefined
        throw err
      })
      return await (await app).inject({ method: 'GET', url })
    },
    close: async () => { if (app !== undefined) await (await app).close() },
  }
}
