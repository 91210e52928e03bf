// :changes in a caller's OpenAPI document: the JSON long-poll and the Server-Sent Events stream,
// and the event, whose record is the caller's own record schema. Its parameters come from the
// route declaration (./routes.ts).
import type { ApiContext, JsonSchema, ResourceApi } from '../../lib/openapi/document.js'

const TYPES = ['created', 'updated', 'entered', 'left', 'deleted']

function eventSchema (resource: ResourceApi): JsonSchema {
  return {
    type: 'object',
    properties: {
      type: { type: 'string', enum: TYPES, description: 'created (or undeleted), updated, entered (now matches your view), left (no longer does), deleted (or soft-deleted).' },
      key: { type: 'string', description: 'The record\'s key as in its URL.' },
      record: { ...resource.refs.record, description: 'The record as you read it after the change (fields, embeds, etag); absent for left and deleted.' },
      batch: { type: 'string', description: 'The same for every change of one transaction.' },
      time: { type: 'string', format: 'date-time' },
    },
    required: ['type', 'key', 'batch', 'time'],
  }
}

export function describeChanges (api: ApiContext, resource: ResourceApi): JsonSchema {
  return {
    summary: `Follow the changes of the ${resource.name} records you may read`,
    description: 'Each change to a record your list with this filter shows, before or after the change, in commit order; one transaction\'s changes together. JSON: a long-poll (wait seconds) answering the changes since page_token and the token to read on from. Accept: text/event-stream: Server-Sent Events, each change\'s id a resume token (send it as Last-Event-ID or page_token), a comment heartbeat, and a last event revoked, reauth, overflow, expired or unavailable when the server ends the stream. See changes.md.',
    responses: {
      200: {
        description: 'The changes since the token (JSON), or the stream of them.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { changes: { type: 'array', items: eventSchema(resource) }, next_page_token: { type: 'string' } },
              required: ['changes', 'next_page_token'],
            },
          },
          'text/event-stream': { schema: { type: 'string', description: 'Events: ready (data { next_page_token }), unnamed change events (data: a change as in the JSON answer), and a last revoked, reauth, overflow, expired or unavailable.' } },
        },
      },
      ...api.problems(400, 401, 403, 410, 429, 503, 504),
    },
  }
}
