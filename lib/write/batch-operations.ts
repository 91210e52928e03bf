// A :batchWrite body → typed operations, or the 400 that names the operation at fault; and the
// gate each operation passes, as a single write passes it in its route. No database here: what
// each operation may do is the write pipeline's business.
import { problem, type Problem } from '../problems.js'
import { parseIfMatch } from '../query/params.js'
import { admit } from '../access/require.js'
import type { WritePlan } from '../plan/types.js'
import { prepareWrite, type WriteContext, type WriteRequest } from './pipeline.js'

export const MAX_OPERATIONS = 500

interface Common { readonly index: number, readonly resource: string }
export type BatchOperation =
  | Common & { readonly op: 'create', readonly data: unknown, readonly ref: string | undefined }
  | Common & { readonly op: 'update', readonly key: unknown, readonly etag: '*' | readonly string[] | undefined, readonly data: unknown }
  | Common & { readonly op: 'delete', readonly key: unknown, readonly etag: '*' | readonly string[] | undefined }
  | Common & { readonly op: 'reorder', readonly field: string, readonly keys: readonly unknown[], readonly etags: Readonly<Record<string, unknown>> }

const MEMBERS: Record<BatchOperation['op'], readonly string[]> = {
  create: ['op', 'resource', 'data', 'ref'],
  update: ['op', 'resource', 'key', 'etag', 'data'],
  delete: ['op', 'resource', 'key', 'etag'],
  reorder: ['op', 'resource', 'field', 'keys', 'etags'],
}

/** 400 invalid-parameter about operation `index` (its member `member`). */
export function invalidOperation (index: number, member: string, message: string, extras: Record<string, unknown> = {}): Problem {
  return problem('invalid-parameter', `Operation ${index}: ${message}`, { errors: [{ parameter: `ops[${index}].${member}`, message }], operation: index, ...extras })
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function etagOf (index: number, value: unknown): '*' | readonly string[] | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.trim() === '') throw invalidOperation(index, 'etag', 'etag must be the record\'s etag text, or *.')
  return parseIfMatch(value)
}

function operation (raw: unknown, index: number): BatchOperation {
  if (!isObject(raw)) throw invalidOperation(index, 'op', 'each operation is a JSON object.')
  const op = raw.op
  if (op !== 'create' && op !== 'update' && op !== 'delete' && op !== 'reorder') {
    throw invalidOperation(index, 'op', 'op is one of create, update, delete, reorder.')
  }
  const resource = raw.resource
  if (typeof resource !== 'string' || resource === '') throw invalidOperation(index, 'resource', 'resource names the resource written.', { op })
  const at = { op, resource }
  for (const member of Object.keys(raw)) {
    if (!MEMBERS[op].includes(member)) throw invalidOperation(index, member, `a ${op} operation has no member '${member}' (it takes ${MEMBERS[op].join(', ')}).`, at)
  }
  switch (op) {
    case 'create': {
      const ref = raw.ref
      if (ref !== undefined && (typeof ref !== 'string' || ref === '')) throw invalidOperation(index, 'ref', 'ref is a name for the created record.', at)
      return { index, op, resource, data: raw.data, ref }
    }
    case 'update':
      return { index, op, resource, key: raw.key, etag: etagOf(index, raw.etag), data: raw.data }
    case 'delete':
      return { index, op, resource, key: raw.key, etag: etagOf(index, raw.etag) }
    case 'reorder': {
      if (typeof raw.field !== 'string') throw invalidOperation(index, 'field', 'field names the integer field to number 1, 2, 3, ...', at)
      if (!Array.isArray(raw.keys) || raw.keys.length === 0) throw invalidOperation(index, 'keys', 'keys lists the records in their final order.', at)
      if (!isObject(raw.etags)) throw invalidOperation(index, 'etags', 'etags maps each key (as URL text) to the record\'s etag.', at)
      return { index, op, resource, field: raw.field, keys: raw.keys, etags: raw.etags }
    }
  }
}

/** The operations of a body `{ ops: [...] }` (or `{ operations: [...] }`), at most 500. */
export function parseOperations (body: unknown): BatchOperation[] {
  const refuse = (message: string): never => {
    throw problem('invalid-parameter', message, { errors: [{ parameter: 'ops', message }] })
  }
  if (!isObject(body)) return refuse('The body of :batchWrite is { "ops": [...] }.')
  const extra = Object.keys(body).filter((k) => k !== 'ops' && k !== 'operations')
  if (extra.length > 0) refuse(`The body of :batchWrite has only ops (or its alias operations), not ${extra.join(', ')}.`)
  if (body.ops !== undefined && body.operations !== undefined) refuse('Send ops or operations, not both.')
  const ops = body.ops ?? body.operations
  if (!Array.isArray(ops)) return refuse('ops is a list of operations.')
  if (ops.length > MAX_OPERATIONS) refuse(`A batch holds at most ${MAX_OPERATIONS} operations; this one has ${ops.length}.`)
  return ops.map(operation)
}

/**
 * A batch spans resources, so it gates each write itself, with the one gate of every route
 * (lib/access/require.ts): visible, operation, tenant, at the point a single write meets them.
 */
export async function planAdmitted (request: Omit<WriteRequest, 'admitted'>, context: WriteContext): Promise<WritePlan> {
  const { access, ctx } = context
  return await prepareWrite({ ...request, admitted: admit(access, access.model, request.operation, ctx.tenant) }, context)
}
