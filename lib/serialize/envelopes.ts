// The answers' envelopes, one home for each shape a read answers with: list and seek pages (their
// records built by ./json.ts), and the aggregates' facets, series and histograms. Each is one
// JSON.stringify of an object literal, its keys in the documented order.
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
