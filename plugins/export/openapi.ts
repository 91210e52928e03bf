// :export in a caller's OpenAPI document: what it answers. Its parameters come from the route
// declaration (./routes.ts), offered to callers who may export the resource.
import type { ApiContext, JsonSchema, ResourceApi } from '../../lib/openapi/document.js'
import { EXPORT_TYPES } from '../../lib/plan/export.js'

export function describeExport (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Export every ${resource.name} record you may read`,
    description: 'Streamed from one read-only transaction: NDJSON (one record a line, without etag and permissions; a to-one path in fields embeds its record, without etag, or null; a to-many path embeds { items, next_page_token } as a get does, its items without etag, the token continuing them on the list of the related resource) or CSV (RFC 4180, a header row of field names; a to-one path is a column named by it, customer.name, and fields=customer a column per field you may read there; a to-many path is refused). format wins over Accept.',
    responses: {
      200: {
        description: 'Every matching record, in order.',
        content: { [EXPORT_TYPES.ndjson]: { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
      },
      ...api.problems(400, 401, 403, 429, 504),
    },
  }
}
