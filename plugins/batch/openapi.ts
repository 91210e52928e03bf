// POST {basePath}:batchWrite in a caller's OpenAPI document: present when the caller may write
// some resource, each operation kind naming only the resources it may do that to.
import type { ApiContext, JsonSchema } from '../../lib/openapi/document.js'
import type { Operation } from '../../lib/access/types.js'
import { MAX_OPERATIONS } from '../../lib/write/batch-operations.js'

const KEY: JsonSchema = {
  description: 'The key as URL text, a number, a list of parts, or { "$ref": "<ref>" } naming a record created earlier in the batch.',
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'array', items: {} },
    // patternProperties: a property literally named $ref reads as a reference to OpenAPI tools.
    { type: 'object', patternProperties: { '^\\$ref$': { type: 'string' } }, properties: { field: { type: 'string' } }, required: ['$ref'] },
  ],
}
const DATA: JsonSchema = { type: 'object', description: 'Writable fields of the resource, as in its create or update body; a value may be { "$ref": "<ref>" } or { "$ref": "<ref>", "field": "<field>" }.' }

function opSchema (op: string, resources: readonly string[], properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: 'object',
    properties: { op: { const: op }, resource: { type: 'string', enum: resources }, ...properties },
    required: ['op', 'resource', ...required],
    additionalProperties: false,
  }
}

export function describeBatch (api: ApiContext): JsonSchema | undefined {
  const allowing = (op: Operation) => api.resources.filter((r) => r.access.operations[op].allowed && (op === 'delete' || (op === 'create' ? r.access.writableOnCreate : r.access.writable).length > 0)).map((r) => r.name)
  const creatable = allowing('create')
  const updatable = allowing('update')
  const deletable = allowing('delete')
  const ops: JsonSchema[] = []
  if (creatable.length > 0) ops.push(opSchema('create', creatable, { data: DATA, ref: { type: 'string', description: 'A name later operations use as { "$ref": ... }.' } }, ['data']))
  if (updatable.length > 0) {
    ops.push(opSchema('update', updatable, { key: KEY, etag: { type: 'string', description: 'If-Match of the update (* for any version).' }, data: DATA }, ['key', 'etag', 'data']))
    ops.push(opSchema('reorder', updatable, {
      field: { type: 'string', description: 'An integer field to set to 1, 2, 3, ... in the order of keys.' },
      keys: { type: 'array', items: KEY },
      etags: { type: 'object', additionalProperties: { type: 'string' }, description: 'The ETag of each key, by its URL text.' },
    }, ['field', 'keys', 'etags']))
  }
  if (deletable.length > 0) ops.push(opSchema('delete', deletable, { key: KEY, etag: { type: 'string' } }, ['key']))
  if (ops.length === 0) return undefined
  const record = { anyOf: api.resources.map((r) => r.refs.record) }
  return {
    summary: 'Many writes in one transaction',
    description: 'The operations run in order in one transaction, each through the same checks as a single write; on any failure nothing is written and the problem names the operation.',
    requestBody: {
      required: true,
      ...api.json({
        type: 'object',
        properties: { ops: { type: 'array', maxItems: MAX_OPERATIONS, items: { oneOf: ops } } },
        required: ['ops'],
        additionalProperties: false,
      }),
    },
    responses: {
      200: {
        description: 'One result per operation, in order.',
        ...api.json({
          type: 'object',
          properties: {
            results: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  record,
                  etag: { type: 'string' },
                  deleted: { const: true },
                  records: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, etag: { type: 'string' } }, required: ['key', 'etag'] } },
                },
              },
            },
          },
          required: ['results'],
        }),
      },
      ...api.problems(400, 401, 403, 404, 409, 412, 413, 415, 428, 504),
    },
  }
}
