// Fastify and Node server options under which the limits of docs/resources.md ("Limits") are the
// ones callers meet, and the refusals Node and Fastify make on their own (a header block too large,
// a URL that is not valid percent-encoded UTF-8, an over-long path segment) are problem+json like
// every other error. createServer uses them; an app that makes its own Fastify instance passes them
// to Fastify().
import type { FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'
import { DEFAULT_BODY_LIMIT } from '../config/resolve.js'
import { PROBLEM_CONTENT_TYPE, problem, toProblemBody, type Problem, type ProblemSlug } from '../problems.js'

/**
 * Request headers, the request line included: a 10,000-character filter is 90 KB when every
 * character is percent-encoded UTF-8 of three bytes, so the filter limit, not Node's 16 KB default,
 * is what a long query meets.
 */
export const MAX_HEADER_BYTES = 128 * 1024
/** A path segment: a record key, composite keys included, each part percent-encoded. */
export const MAX_PATH_SEGMENT = 4096

const CLIENT_ERRORS: Record<string, ProblemSlug> = {
  HPE_HEADER_OVERFLOW: 'headers-too-large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request-timeout',
}

const CLIENT_ERROR_DETAILS: Partial<Record<ProblemSlug, string>> = {
  'headers-too-large': `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes: send long filters in the body of POST /{resource}:search.`,
  'request-timeout': 'The request did not arrive in time.',
}

function rawProblem (p: Problem, metaVersion: string | undefined): string {
  // The request line could not be read, so there is no path to name as the instance.
  const body = JSON.stringify(toProblemBody(p, '/'))
  const meta = metaVersion === undefined ? '' : `X-Meta-Version: ${metaVersion}\r\n`
  return `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${meta}Connection: close\r\n\r\n${body}`
}

/** Node's parser refused the request before Fastify saw it: answer on the socket, as a problem. */
function clientErrorHandler (this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const slug = CLIENT_ERRORS[err.code ?? ''] ?? 'malformed-request'
  const p = problem(slug, CLIENT_ERROR_DETAILS[slug] ?? 'The request is not valid HTTP.')
  if (socket.writable) socket.write(rawProblem(p, (this as Partial<FastifyInstance>).tablegate?.metaVersion([])))
  socket.destroy(err)
}

const MALFORMED_URL = 'The URL is not valid percent-encoded UTF-8.'

/** Fastify's router refused the URL (bad percent-encoding, a segment over the limit). */
function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const p = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? problem('uri-too-long', `A path segment is longer than ${MAX_PATH_SEGMENT} characters.`)
    : problem('malformed-request', MALFORMED_URL)
  // The URL does not decode: the instance is the path up to the query as it was sent, with only
  // bytes outside printable ASCII escaped (its own escapes are kept, not escaped again).
  const path = (request.raw.url?.split('?')[0] ?? '/').replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c))
  void reply.code(p.status).type(PROBLEM_CONTENT_TYPE).send(toProblemBody(p, path))
}

/**
 * A query string whose escapes do not decode (`%ZZ`, a cut UTF-8 sequence) is refused as a path
 * would be: Fastify's parser would keep such a value as literal text, and a filter would then
 * mean something its sender did not write.
 */
export function malformedQuery (url: string): Problem | undefined {
  const start = url.indexOf('?')
  if (start === -1 || !url.includes('%', start)) return undefined
  try {
    decodeURIComponent(url.slice(start + 1))
    return undefined
  } catch {
    return problem('malformed-request', MALFORMED_URL)
  }
}

/**
 * An HTTP/1.1 request without Host (RFC 9112, 3.2): refused here as a problem, where Node's own
 * check (`requireHostHeader`, turned off below) answers an empty 400 that is not one.
 */
export function missingHost (request: IncomingMessage): Problem | undefined {
  return request.headers.host === undefined && request.httpVersion === '1.1'
    ? problem('malformed-request', 'An HTTP/1.1 request must carry a Host header.')
    : undefined
}

/**
 * The options createServer gives Fastify; pass them to your own `Fastify()` to get the same, with
 * the config's `bodyLimit` where it has one.
 */
export function serverOptions (settings: { readonly bodyLimit?: number } = {}): FastifyHttpOptions<Server> {
  return {
    bodyLimit: settings.bodyLimit ?? DEFAULT_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    // A body is checked as sent: `{"email": 1}` is a number where text belongs, not the text "1".
    ajv: { customOptions: { coerceTypes: false } },
    http: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors,
    // Fastify's own 503 while closing is application/json, not a problem: a request already on an
    // open connection when the app starts closing is served like those in flight.
    return503OnClosing: false,
  }
}
