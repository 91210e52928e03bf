// :export in a caller's OpenAPI document: on resources the caller may export.
import type { ApiContext, PathItems } from '../../lib/openapi/document.js'
import { EXPORT_TYPES } from '../../lib/plan/export.js'

export function describeExports (api: ApiContext): PathItems {
  const paths: PathItems = {}
  for (const resource of api.resources) {
    const { access, name } = resource
    if (!access.operations.export.allowed) continue
    paths[`${resource.collectionPath}:export`] = {
      get: {
        operationId: `export_${name}`,
        tags: [name],
        summary: `Export every ${name} record you may read`,
        description: 'Streamed from one read-only transaction: NDJSON (one record a line, without etag and permissions) or CSV (RFC 4180, a header row of field names). format wins over Accept.',
        parameters: [
          { name: 'format', in: 'query', schema: { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson' }, description: 'Or send Accept: text/csv or application/x-ndjson.' },
          api.parameter('filter'),
          api.parameter('order_by'),
          api.parameter('fields'),
          ...(access.showDeleted ? [api.parameter('show_deleted')] : []),
        ],
        responses: {
          200: {
            description: 'Every matching record, in order.',
            content: { [EXPORT_TYPES.ndjson]: { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...api.problems(400, 401, 403, 429, 504),
        },
      },
    }
  }
  return paths
}
