// Which aggregate route answers a view's chart, and its answer as labelled counts. The routes
// count records (docs/aggregates.md), so every chart plots a count per value of x: a time x goes
// to :series, a numeric x to :histogram, anything else to :facets. The counts are the server's
// own for the caller's rows; the console adds nothing up itself.
import { basePath } from './api.js'
import { isNumeric, type ChartMeta, type FieldType } from './meta.js'

export type Source = 'facets' | 'series' | 'histogram'

export interface Point {
  readonly label: string
  readonly count: number
}

const TIME = new Set<FieldType>(['timestamp', 'date'])

export function sourceOf (type: FieldType): Source {
  return TIME.has(type) ? 'series' : isNumeric(type) ? 'histogram' : 'facets'
}

/** The browser's zone, so a day is the reader's day; the route refuses offsets, and so UTC without a name. */
export function browserZone (): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC'
}

/**
 * The route's URL. A series spans all the caller's rows (`range=all`) with the granularity the
 * route picks for that span, so a chart is never an empty month for a resource written last year.
 */
export function chartPath (resource: string, chart: ChartMeta, source: Source, timeZone: string, filter = ''): string {
  const query = new URLSearchParams({ field: chart.x })
  if (filter !== '') query.set('filter', filter)
  if (source === 'series') { query.set('range', 'all'); query.set('time_zone', timeZone) }
  return `${basePath}/${encodeURIComponent(resource)}:${source}?${query}`
}

interface FacetsAnswer { readonly facets: ReadonlyArray<{ readonly value: unknown, readonly count: number }> }
interface SeriesAnswer { readonly granularity: string | null, readonly buckets: ReadonlyArray<{ readonly start: string, readonly count: number }> }
interface HistogramAnswer { readonly buckets: ReadonlyArray<{ readonly start: number | string, readonly end: number | string, readonly count: number }> }

function edge (value: number | string): string {
  return typeof value === 'number' ? String(Math.round(value * 100) / 100) : value
}

/** `instant`'s wall time in `timeZone`, cut to what `granularity` tells apart. */
export function bucketLabel (instant: string, granularity: string | null, timeZone: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(instant)).map((part) => [part.type, part.value]))
  const day = `${parts.year}-${parts.month}-${parts.day}`
  switch (granularity) {
    case 'hour': return `${day} ${parts.hour}:${parts.minute}`
    case 'month': return `${parts.year}-${parts.month}`
    case 'quarter': return `${parts.year} Q${Math.floor((Number(parts.month) - 1) / 3) + 1}`
    case 'year': return String(parts.year)
    default: return day
  }
}

export function pointsOf (source: Source, answer: unknown, timeZone: string): Point[] {
  if (source === 'facets') {
    return (answer as FacetsAnswer).facets.map(({ value, count }) => ({ label: value === null ? '(empty)' : String(value), count }))
  }
  if (source === 'series') {
    const { granularity, buckets } = answer as SeriesAnswer
    return buckets.map(({ start, count }) => ({ label: bucketLabel(start, granularity, timeZone), count }))
  }
  return (answer as HistogramAnswer).buckets.map(({ start, end, count }) => ({ label: `${edge(start)}–${edge(end)}`, count }))
}

/** A step of 1, 2 or 5 times a power of ten that splits `max` into about four ticks, at least 1. */
export function tickStep (max: number): number {
  const rough = Math.max(1, max / 4)
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough)!
  return Math.max(1, step)
}
