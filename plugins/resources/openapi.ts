// The resource routes in a caller's OpenAPI document: list, :search, :seek, get, create, update, delete
// and :undelete, each only where the caller's access plan allows it.
import type { ApiContext, JsonSchema, PathItems, ResourceApi } from '../../lib/openapi/document.js'

function operation (resource: ResourceApi, id: string, summary: string, parts: JsonSchema): JsonSchema {
  return { operationId: `${id}_${resource.name}`, tags: [resource.name], summary, ...parts }
}

const withEtag = { ETag: { schema: { type: 'string' }, description: 'The record\'s ETag.' } }

function describeResource (api: ApiContext, resource: ResourceApi): PathItems {
  const { access, refs, name } = resource
  const allowed = (op: keyof typeof access.operations) => access.operations[op].allowed
  const softDelete = access.model.softDelete !== undefined
  const showDeleted = access.showDeleted ? [api.parameter('show_deleted')] : []
  const listParameters = ['filter', 'order_by', 'page_size', 'page_token', 'fields', 'count'] as const
  const record = (description: string, status = '200') => ({ [status]: { description, headers: withEtag, ...api.json(refs.record) } })
  const collection: Record<string, JsonSchema> = {}
  const search: Record<string, JsonSchema> = {}
  const seek: Record<string, JsonSchema> = {}
  const item: Record<string, JsonSchema> = {}
  const undelete: Record<string, JsonSchema> = {}

  if (allowed('read')) {
    collection.get = operation(resource, 'list', `List ${name}`, {
      parameters: [...listParameters.map((p) => api.parameter(p)), ...showDeleted],
      responses: { 200: { description: 'A page of records.', ...api.json(refs.list) }, ...api.problems(400, 401, 403, 504) },
    })
    search.post = operation(resource, 'search', `Search ${name} (list parameters in a body)`, {
      requestBody: api.json({
        type: 'object',
        properties: {
          filter: { type: 'string' },
          order_by: { type: 'string' },
          page_size: { type: 'integer', minimum: 1 },
          page_token: { type: 'string' },
          fields: { type: 'array', items: { type: 'string' } },
          count: { type: 'string', enum: ['exact'] },
          ...(access.showDeleted ? { show_deleted: { type: 'boolean' } } : {}),
        },
        additionalProperties: false,
      }),
      responses: { 200: { description: 'A page of records.', ...api.json(refs.list) }, ...api.problems(400, 401, 403, 413, 415, 504) },
    })
    seek.get = operation(resource, 'seek', `The page of ${name} at a row position`, {
      parameters: [
        { name: 'position', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'The 0-based row of the filtered, ordered rows the page starts at; or send page_token.' },
        ...(['filter', 'order_by', 'page_size', 'page_token', 'fields'] as const).map((p) => api.parameter(p)),
        ...showDeleted,
      ],
      responses: {
        200: {
          description: 'The page, with tokens to read on from its own rows ("" at either end).',
          ...api.json({
            type: 'object',
            properties: { items: { type: 'array', items: refs.record }, next_page_token: { type: 'string' }, prev_page_token: { type: 'string' } },
            required: ['items', 'next_page_token', 'prev_page_token'],
            additionalProperties: false,
          }),
        },
        ...api.problems(400, 401, 403, 504),
      },
    })
    item.get = operation(resource, 'get', `Get one of ${name}`, {
      parameters: [api.parameter('fields'), ...showDeleted, api.parameter('ifNoneMatch')],
      responses: { ...record('The record.'), 304: { description: 'Not modified: If-None-Match matched.', headers: withEtag }, ...api.problems(400, 401, 403, 404, 504) },
    })
  }
  if (allowed('create') && access.writableOnCreate.length > 0) {
    collection.post = operation(resource, 'create', `Create one of ${name}`, {
      parameters: [api.parameter('preferWrite')],
      requestBody: { required: true, ...api.json(refs.create) },
      responses: {
        // OpenAPI keys a response on its status alone, and this 201 is empty under Prefer:
        // return=minimal: a `content` would say every 201 carries JSON (docs/decisions.md).
        201: {
          description: `Created. By default the body is the new record as JSON (#/components/schemas/${name}); with Prefer: return=minimal there is no body.`,
          headers: { ...withEtag, Location: { schema: { type: 'string' }, description: 'The new record\'s address.' } },
        },
        ...api.problems(400, 401, 403, 409, 413, 415, 504),
      },
    })
  }
  if (allowed('update') && access.writable.length > 0) {
    item.patch = operation(resource, 'update', `Update one of ${name}`, {
      parameters: [api.parameter('ifMatchRequired'), api.parameter('preferWrite')],
      requestBody: { required: true, ...api.json(refs.update) },
      responses: { ...record('Updated.'), 204: { description: 'Updated (Prefer: return=minimal).', headers: withEtag }, ...api.problems(400, 401, 403, 404, 409, 412, 413, 415, 428, 504) },
    })
  }
  if (allowed('delete')) {
    item.delete = operation(resource, 'delete', softDelete ? `Delete one of ${name} (soft: :undelete restores it)` : `Delete one of ${name}`, {
      parameters: [api.parameter('ifMatch'), api.parameter('preferDelete')],
      responses: { 204: { description: 'Deleted.' }, ...record('The deleted record (Prefer: return=representation).'), ...api.problems(400, 401, 403, 404, 409, 412, 504) },
    })
  }
  if (softDelete && allowed('undelete')) {
    undelete.post = operation(resource, 'undelete', `Restore a deleted one of ${name}`, {
      parameters: [api.parameter('key'), api.parameter('ifMatch')],
      responses: { ...record('The restored record.'), ...api.problems(400, 401, 403, 404, 409, 412, 504) },
    })
  }
  const withKey = (methods: Record<string, JsonSchema>): Record<string, unknown> => ({ parameters: [api.parameter('key')], ...methods })
  const paths: PathItems = {}
  if (Object.keys(collection).length > 0) paths[resource.collectionPath] = collection
  if (Object.keys(search).length > 0) paths[`${resource.collectionPath}:search`] = search
  if (Object.keys(seek).length > 0) paths[`${resource.collectionPath}:seek`] = seek
  if (Object.keys(item).length > 0) paths[resource.recordPath] = withKey(item)
  if (Object.keys(undelete).length > 0) paths[`${resource.recordPath}:undelete`] = undelete
  return paths
}

export function describeResourceRoutes (api: ApiContext): PathItems {
  return Object.assign({}, ...api.resources.map((r) => describeResource(api, r))) as PathItems
}
