// Any thrown value → the problem to answer with. Our Problems pass through; Fastify's own errors
// and database errors map to fixed wording; anything else is an unexpected 500.
import { INTERNAL_ERROR_DETAIL, isProblem, problem, type Problem } from '../problems.js'
import { problemFromPgError } from '../db/pg-errors.js'

interface FastifyLikeError {
  code?: string
  statusCode?: number
  validation?: Array<{ instancePath?: string, message?: string, params?: Record<string, unknown> }>
  validationContext?: string
}

export interface MappedError {
  readonly problem: Problem
  /** True when the error was not foreseen: log it and report it to `onUnhandledError`. */
  readonly unexpected: boolean
}

function validationProblem (err: FastifyLikeError): Problem {
  const context = err.validationContext ?? 'body'
  const issues = (err.validation ?? []).map((v) => {
    const missing = typeof v.params?.missingProperty === 'string' ? v.params.missingProperty : undefined
    const extra = typeof v.params?.additionalProperty === 'string' ? v.params.additionalProperty : undefined
    const path = (v.instancePath ?? '').split('/').filter((p) => p !== '').join('.')
    const name = missing ?? extra ?? (path === '' ? context : path)
    const message = missing !== undefined ? 'is required' : extra !== undefined ? 'is not a known field' : (v.message ?? 'is invalid')
    return { name, message }
  })
  if (context === 'body') {
    return problem('invalid-record', 'The request body is invalid.', {
      errors: issues.map((i) => ({ field: i.name, code: 'invalid', message: `${i.name} ${i.message}` })),
    })
  }
  return problem('invalid-parameter', `The request ${context} is invalid.`, {
    errors: issues.map((i) => ({ parameter: i.name, message: `${i.name} ${i.message}` })),
  })
}

export function mapError (error: unknown): MappedError {
  if (isProblem(error)) return { problem: error, unexpected: false }
  const err = (typeof error === 'object' && error !== null ? error : {}) as FastifyLikeError
  if (Array.isArray(err.validation)) return { problem: validationProblem(err), unexpected: false }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: problem('malformed-json', 'The request body is not valid JSON.'), unexpected: false }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: problem('payload-too-large', 'The request body is larger than the server accepts.'), unexpected: false }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { problem: problem('unsupported-media-type', 'The request body must be application/json.'), unexpected: false }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { problem: problem('invalid-parameter', 'The request body size does not match Content-Length.'), unexpected: false }
  }
  const fromDb = problemFromPgError(error)
  if (fromDb !== undefined) return { problem: fromDb, unexpected: fromDb.status >= 500 && fromDb.slug !== 'statement-timeout' }
  const status = err.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return { problem: problem('not-found', 'Not found.'), unexpected: false }
    if (status === 413) return { problem: problem('payload-too-large', 'The request is larger than the server accepts.'), unexpected: false }
    if (status === 415) return { problem: problem('unsupported-media-type', 'The request body must be application/json.'), unexpected: false }
    return { problem: problem('invalid-parameter', 'The request is malformed.'), unexpected: false }
  }
  return { problem: problem('internal-error', INTERNAL_ERROR_DETAIL), unexpected: true }
}
