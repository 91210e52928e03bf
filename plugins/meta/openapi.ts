// GET {apiRoot}/meta and {apiRoot}/openapi.json in a caller's OpenAPI document: every caller may
// read both (ETag and If-None-Match as on records). /api/docs is a browser page, not an API operation.
import type { ApiContext, JsonSchema, PathItems } from '../../lib/openapi/document.js'

const ETAG = { ETag: { schema: { type: 'string' }, description: 'A hash of the whole document: send it as If-None-Match.' } }

function documentRoute (api: ApiContext, id: string, summary: string, schema: JsonSchema): Record<string, unknown> {
  return {
    get: {
      operationId: id,
      summary,
      parameters: [{ name: 'If-None-Match', in: 'header', schema: { type: 'string' }, description: 'The ETag of an earlier copy: while it still matches, 304 with no body.' }],
      responses: {
        200: { description: summary, headers: ETAG, ...api.json(schema) },
        304: { description: 'Not modified: If-None-Match matched.', headers: ETAG },
        ...api.problems(400, 401),
      },
    },
  }
}

export function describeMetaRoutes (apiRoot: string): (api: ApiContext) => PathItems {
  return (api) => ({
    [`${apiRoot}/meta`]: documentRoute(api, 'meta', 'The caller\'s restricted models, views, permissions, pages and menu', {
      type: 'object',
      properties: { resources: { type: 'object' }, views: { type: 'object' }, permissions: { type: 'object' }, userMenu: { type: 'array' }, pages: { type: 'array' } },
      required: ['resources', 'views', 'permissions', 'userMenu', 'pages'],
    }),
    [`${apiRoot}/openapi.json`]: documentRoute(api, 'openapi', 'This OpenAPI document', { type: 'object', properties: { openapi: { type: 'string' } }, required: ['openapi', 'info', 'paths'] }),
  })
}
