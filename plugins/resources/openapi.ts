// The resource routes' operations in a caller's OpenAPI document: what each answers. Their
// parameters come from the route declarations (./routes.ts), and the route table describes an
// operation only for callers who may call it.
import type { ApiContext, JsonSchema, ResourceApi } from '../../lib/openapi/document.js'
import { MAX_FILTER_BODY } from '../../lib/plan/list.js'

const withEtag = { ETag: { schema: { type: 'string' }, description: 'The record\'s ETag.' } }

const record = (api: ApiContext, resource: ResourceApi, description: string, status = '200'): JsonSchema =>
  ({ [status]: { description, headers: withEtag, ...api.json(resource.refs.record) } })

const aPage = (api: ApiContext, resource: ResourceApi): JsonSchema => ({ 200: { description: 'A page of records.', ...api.json(resource.refs.list) } })

export function describeList (api: ApiContext, resource: ResourceApi): JsonSchema {
  return { summary: `List ${resource.name}`, responses: { ...aPage(api, resource), ...api.problems(400, 401, 403, 504) } }
}

export function describeSearch (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Search ${resource.name} (list parameters in a body)`,
    requestBody: api.json({
      type: 'object',
      properties: {
        filter: { type: 'string', maxLength: MAX_FILTER_BODY },
        order_by: { type: 'string' },
        page_size: { type: 'integer', format: 'int32', minimum: 1, maximum: 2 ** 31 - 1 },
        page_token: { type: 'string' },
        fields: { type: 'array', items: { type: 'string' } },
        count: { type: 'string', enum: ['exact'] },
        ...(resource.access.showDeleted ? { show_deleted: { type: 'boolean' } } : {}),
      },
      additionalProperties: false,
    }),
    responses: { ...aPage(api, resource), ...api.problems(400, 401, 403, 413, 415, 504) },
  }
}

export function describeSeek (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `The page of ${resource.name} at a row position`,
    responses: {
      200: {
        description: 'The page, with tokens to read on from its own rows ("" at either end).',
        ...api.json({
          type: 'object',
          properties: { items: { type: 'array', items: resource.refs.record }, next_page_token: { type: 'string' }, prev_page_token: { type: 'string' } },
          required: ['items', 'next_page_token', 'prev_page_token'],
          additionalProperties: false,
        }),
      },
      ...api.problems(400, 401, 403, 504),
    },
  }
}

export function describeGet (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Get one of ${resource.name}`,
    responses: { ...record(api, resource, 'The record.'), 304: { description: 'Not modified: If-None-Match matched.', headers: withEtag }, ...api.problems(400, 401, 403, 404, 504) },
  }
}

export function describeCreate (api: ApiContext, resource: ResourceApi): JsonSchema {
  const { name, refs } = resource
  return {
    summary: `Create one of ${name}`,
    requestBody: { required: true, ...api.json(refs.create) },
    responses: {
      // OpenAPI keys a response on its status alone, and this 201 is empty under Prefer:
      // return=minimal: a `content` would say every 201 carries JSON (docs/decisions.md).
      201: {
        description: `Created. By default the body is the new record as JSON (#/components/schemas/${name}), with the relations fields embeds; with Prefer: return=minimal there is no body.`,
        headers: { ...withEtag, Location: { schema: { type: 'string' }, description: 'The new record\'s address.' } },
      },
      ...api.problems(400, 401, 403, 409, 413, 415, 504),
    },
  }
}

export function describeUpdate (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Update one of ${resource.name}`,
    requestBody: { required: true, ...api.json(resource.refs.update) },
    responses: { ...record(api, resource, 'Updated.'), 204: { description: 'Updated (Prefer: return=minimal).', headers: withEtag }, ...api.problems(400, 401, 403, 404, 409, 412, 413, 415, 428, 504) },
  }
}

export function describeDelete (api: ApiContext, resource: ResourceApi): JsonSchema {
  const { name } = resource
  return {
    summary: resource.access.model.softDelete !== undefined ? `Delete one of ${name} (soft: :undelete restores it)` : `Delete one of ${name}`,
    responses: { 204: { description: 'Deleted.' }, ...record(api, resource, 'The deleted record (Prefer: return=representation).'), ...api.problems(400, 401, 403, 404, 409, 412, 504) },
  }
}

export function describeUndelete (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Restore a deleted one of ${resource.name}`,
    responses: { ...record(api, resource, 'The restored record.'), ...api.problems(400, 401, 403, 404, 409, 412, 504) },
  }
}
