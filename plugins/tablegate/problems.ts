// problem+json for every error and for unknown routes. Unexpected errors are logged as errors,
// reported to `onUnhandledError`, and answered with a fixed 500 detail; a foreseen 5xx is logged
// as a warning. Either line carries the request id (`reqId`) and the error with its stack.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { NO_ROUTE_DETAIL, problem, problemHeaders, toProblemBody, type Problem } from '../../lib/problems.js'
import { mapError } from '../../lib/http/error-mapping.js'
import type { UnhandledErrorHandler } from '../../lib/config/functions.js'

export function sendProblem (request: FastifyRequest, reply: FastifyReply, p: Problem): FastifyReply {
  return reply.code(p.status).headers(problemHeaders(p)).send(toProblemBody(p, request.url))
}

export function problemHandling (app: FastifyInstance, onUnhandledError: UnhandledErrorHandler | undefined): void {
  app.setErrorHandler(async (error, request, reply) => {
    const { problem: p, unexpected } = mapError(error)
    // Why a token was refused helps whoever runs the server; the detail holds no token or secret.
    if (p.status === 401) request.log.debug({ detail: p.detail }, 'request not authenticated')
    if (unexpected) {
      request.log.error({ err: error }, 'unhandled error')
      try {
        onUnhandledError?.(error, request)
      } catch (hookError) {
        request.log.error({ err: hookError }, 'onUnhandledError threw')
      }
    } else if (p.status >= 500) {
      // A foreseen 5xx (a statement timeout, signing keys that cannot be loaded, not ready): no
      // bug, so a warning, but one the operator can find by its request id, with where it arose.
      request.log.warn({ err: error, problem: p.slug }, `answered ${p.status} ${p.slug}`)
    }
    return sendProblem(request, reply, p)
  })
  app.setNotFoundHandler(async (request, reply) => sendProblem(request, reply, problem('not-found', NO_ROUTE_DETAIL)))
}
