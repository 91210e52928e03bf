// The answer of :batchWrite as JSON text: `{ "results": [...] }`, one result per operation, in
// order. A record is JSON text already (serialize/json.ts), so results are joined, not re-encoded.

/** A created or updated record's result: the record as a get shows it, and its ETag. */
export function writtenResult (record: string, etag: string): string {
  return `{"record":${record},"etag":${JSON.stringify(etag)}}`
}

export const DELETED_RESULT = '{"deleted":true}'

/** A reorder's result: each record's key (as URL text) and ETag, in the order given. */
export function reorderedResult (records: ReadonlyArray<{ readonly key: string, readonly etag: string }>): string {
  return JSON.stringify({ records: records.map(({ key, etag }) => ({ key, etag })) })
}

export function batchJson (results: readonly string[]): string {
  return `{"results":[${results.join(',')}]}`
}
