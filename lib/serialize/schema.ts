// JSON Schemas of records and list envelopes, per resource, for Fastify's compiled serializer
// (fast-json-stringify). A field absent from a record (hidden, or left out by `fields`) is skipped.
import type { FieldModel, ResourceModel } from '../model/types.js'

type JsonSchema = Record<string, unknown>

function valueSchema (field: FieldModel): JsonSchema {
  switch (field.type) {
    case 'integer': return { type: ['integer', 'null'] }
    case 'number': return { type: ['number', 'null'] }
    case 'boolean': return { type: ['boolean', 'null'] }
    case 'json': return {}
    default: return { type: ['string', 'null'] }
  }
}

const PERMISSIONS: JsonSchema = {
  type: 'object',
  properties: {
    update: { type: 'boolean' },
    delete: { type: 'boolean' },
    fields: { type: 'object', additionalProperties: { type: 'string' } },
  },
}

export function recordSchema (model: ResourceModel): JsonSchema {
  return {
    type: 'object',
    properties: {
      ...Object.fromEntries([...model.fields.values()].map((f) => [f.name, valueSchema(f)])),
      etag: { type: 'string' },
      permissions: PERMISSIONS,
    },
  }
}

export function listSchema (model: ResourceModel): JsonSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: recordSchema(model) },
      next_page_token: { type: 'string' },
      total_size_estimate: { type: 'integer' },
      total_size: { type: 'integer' },
    },
  }
}
