// The answers' envelopes, one home for each shape a route answers with: list and seek pages (their
// records built by ./json.ts), the aggregates' facets, series and histograms, and :batchWrite's
// results. Each is one JSON.stringify of an object literal, its keys in the documented order,
// except where records are JSON text already and are joined, not encoded again.
import type { Row } from './record.js'

/** A list page: its records, the next page token and the sizes. */
export function listJson (records: readonly Row[], nextPageToken: string, totalSizeEstimate: number, totalSize: number | undefined): string {
  return JSON.stringify(totalSize === undefined
    ? { items: records, next_page_token: nextPageToken, total_size_estimate: totalSizeEstimate }
    : { items: records, next_page_token: nextPageToken, total_size_estimate: totalSizeEstimate, total_size: totalSize })
}

/** A seek page: its records and the tokens of its own rows, nothing about the rows beyond them. */
export function seekJson (records: readonly Row[], nextPageToken: string, prevPageToken: string): string {
  return JSON.stringify({ items: records, next_page_token: nextPageToken, prev_page_token: prevPageToken })
}

/** `{ field, facets: [{ value, count }] }`. */
export function facetsJson (field: string, facets: ReadonlyArray<{ value: unknown, count: number }>): string {
  return JSON.stringify({ field, facets })
}

/** `{ field, granularity, time_zone, from, to, buckets: [{ start, count }] }`. */
export function seriesJson (field: string, granularity: string | null, timeZone: string, from: string | null, to: string | null, buckets: ReadonlyArray<{ start: string, count: number }>): string {
  return JSON.stringify({ field, granularity, time_zone: timeZone, from, to, buckets })
}

/** `{ field, min, max, buckets: [{ start, end, count }], nulls }`. */
export function histogramJson (field: string, min: unknown, max: unknown, buckets: ReadonlyArray<{ start: unknown, end: unknown, count: number }>, nulls: number): string {
  return JSON.stringify({ field, min, max, buckets, nulls })
}

// :batchWrite: `{ "results": [...] }`, one result per operation, in order.

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
