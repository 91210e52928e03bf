// The parameters and problem responses operations share, described once (AIP-158 pages, AIP-160
// filters, AIP-132 order, AIP-154 ETags, Prefer), as components the describers refer to.
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../query/params.js'
import { MAX_FILTER_QUERY } from '../plan/list.js'
import type { JsonSchema } from './schemas.js'
import { INT4_MAX } from '../model/values.js'

export const PARAMETERS = {
  key: {
    name: 'key', in: 'path', required: true, schema: { type: 'string' },
    description: 'The record\'s key; a composite key is its parts joined by "," with each part percent-encoded.',
  },
  filter: {
    name: 'filter', in: 'query', schema: { type: 'string', maxLength: MAX_FILTER_QUERY },
    description: 'AIP-160 filter over the fields you may read, e.g. status = "open" AND total > 10.',
  },
  order_by: {
    name: 'order_by', in: 'query', schema: { type: 'string' },
    description: 'AIP-132 order over sortable fields, e.g. placed_at desc, title; a to-one relation path orders by a related record\'s field: customer.name desc (two relations at most).',
  },
  page_size: {
    name: 'page_size', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: INT4_MAX, default: DEFAULT_PAGE_SIZE },
    description: `Records per page; above ${MAX_PAGE_SIZE} it is ${MAX_PAGE_SIZE}.`,
  },
  page_token: {
    name: 'page_token', in: 'query', schema: { type: 'string' },
    description: 'next_page_token (or prev_page_token) of an earlier page.',
  },
  fields: {
    name: 'fields', in: 'query', schema: { type: 'string' },
    description: 'Comma separated fields to return; etag is always returned. A path through a relation embeds it: customer (the record, every field you may read there), customer.name (those named), lines.sku (a to-many: { items, next_page_token }, its first page), customer.region.name (two relations at most).',
  },
  count: {
    name: 'count', in: 'query', schema: { type: 'string', enum: ['exact'] },
    description: 'count=exact adds total_size.',
  },
  show_deleted: {
    name: 'show_deleted', in: 'query', schema: { type: 'boolean', default: false },
    description: 'Include soft-deleted records.',
  },
  ifMatchRequired: {
    name: 'If-Match', in: 'header', required: true, schema: { type: 'string' },
    description: 'The record\'s ETag as last read; * matches any version. Missing: 428; stale: 412.',
  },
  ifMatch: {
    name: 'If-Match', in: 'header', schema: { type: 'string' },
    description: 'When sent, the record\'s ETag as last read (* matches any version); stale: 412.',
  },
  ifNoneMatch: {
    name: 'If-None-Match', in: 'header', schema: { type: 'string' },
    description: 'The record\'s ETag as last read (or *): when it still matches, 304 with no body.',
  },
  preferWrite: {
    name: 'Prefer', in: 'header', schema: { type: 'string', enum: ['return=representation', 'return=minimal'] },
    description: 'return=minimal answers without a body.',
  },
  preferDelete: {
    name: 'Prefer', in: 'header', schema: { type: 'string', enum: ['return=minimal', 'return=representation'] },
    description: 'return=representation answers with the deleted record instead of 204.',
  },
} satisfies Record<string, JsonSchema>

export type ProblemStatus = 400 | 401 | 403 | 404 | 408 | 409 | 410 | 412 | 413 | 414 | 415 | 428 | 429 | 431 | 500 | 503 | 504

export const PROBLEM_RESPONSES: Record<ProblemStatus, { readonly name: string, readonly description: string }> = {
  400: { name: 'BadRequest', description: 'Invalid parameter, filter, key or record, or a URL that is not valid percent-encoded UTF-8 (problem details say which).' },
  401: { name: 'Unauthenticated', description: 'Missing, expired or invalid bearer token.' },
  403: { name: 'AccessDenied', description: 'The operation is not allowed for this caller or record.' },
  404: { name: 'NotFound', description: 'No such record, or none the caller may see.' },
  408: { name: 'RequestTimeout', description: 'The request did not arrive in time; the connection is closed.' },
  409: { name: 'Conflict', description: 'The write conflicts with stored data.' },
  410: { name: 'ChangesExpired', description: 'The change token is older than the change log\'s retention: list the records again and follow from now.' },
  412: { name: 'PreconditionFailed', description: 'If-Match does not match the current ETag.' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than the server accepts (config bodyLimit, 1 MiB by default).' },
  414: { name: 'UriTooLong', description: 'A path segment (the key) is longer than 4096 characters.' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json in UTF-8, or has a Content-Encoding.' },
  428: { name: 'PreconditionRequired', description: 'If-Match is required.' },
  429: { name: 'TooManyRequests', description: 'Too many at once: try again after Retry-After seconds.' },
  431: { name: 'HeadersTooLarge', description: 'The request line and headers are larger than 128 KiB; the connection is closed. Send long filters in a :search body.' },
  500: { name: 'InternalError', description: 'An unexpected failure; the detail is fixed and the error is reported.' },
  503: { name: 'ServiceUnavailable', description: 'The database or the signing keys cannot be reached right now: try again shortly (after Retry-After seconds where sent).' },
  504: { name: 'StatementTimeout', description: 'The statement timeout was exceeded.' },
}

/** What a 401 sends as its challenge (RFC 6750): bare without a token, with the error for a bad one. */
export const CHALLENGES = ['Bearer', 'Bearer error="invalid_token"'] as const
