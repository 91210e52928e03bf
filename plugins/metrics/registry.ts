// The app's Prometheus metrics, on a registry of its own (two apps in one process share none):
// requests by route template, method and status with their latency; the pools; statement
// timeouts and sign-in refusals; the caches that keep requests cheap. Gauges and cache counters
// are read when scraped, so a request pays only for its own histogram sample.
import cluster from 'node:cluster'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Runtime } from '../../lib/runtime.js'
import type { CacheStats } from '../../lib/cache.js'

/** Seconds: from a cached get (under 1 ms) to the statement timeout's range. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export interface AnsweredRequest {
  /** The route template (`/api/v1/orders/:key`), or undefined when no route matched. */
  readonly route: string | undefined
  readonly method: string
  readonly status: number
  readonly seconds: number
}

export interface AppMetrics {
  readonly registry: Registry
  observe (request: AnsweredRequest): void
}

/** A counter whose value is read from `read()` at scrape time. */
function countedAtScrape (registry: Registry, name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect () {
      this.reset()
      for (const [labels, value] of read()) this.inc(labels, value)
    },
  })
}

export function appMetrics (runtime: Runtime, signInPath: string): AppMetrics {
  const registry = new Registry()
  // Under `serve --workers`, each scrape reaches one worker: its series carry the worker's number,
  // so one worker's counters are never read as another's gone backwards.
  if (cluster.isWorker && cluster.worker !== undefined) registry.setDefaultLabels({ worker: String(cluster.worker.id) })
  const duration = new Histogram({
    name: 'tablegate_http_request_duration_seconds',
    help: 'Requests by route template, method and status, with their latency (_count is the request count).',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const timeouts = new Counter({ name: 'tablegate_statement_timeouts_total', help: 'Requests answered 504 statement-timeout.', registers: [registry] })
  const refusals = new Counter({ name: 'tablegate_sign_in_refusals_total', help: 'Sign-ins refused: reason credentials (401) or rate-limited (429).', labelNames: ['reason'], registers: [registry] })
  const pools = { app: runtime.db.app, read: runtime.db.read, admin: runtime.db.admin }
  const poolGauge = (name: string, help: string, read: (pool: typeof runtime.db.app) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect () {
        for (const [label, pool] of Object.entries(pools)) this.set({ pool: label }, read(pool))
      },
    })
  }
  poolGauge('tablegate_db_pool_connections', 'Open connections of each pool.', (pool) => pool.totalCount)
  poolGauge('tablegate_db_pool_idle', 'Idle connections of each pool.', (pool) => pool.idleCount)
  poolGauge('tablegate_db_pool_waiting', 'Requests waiting for a connection of each pool.', (pool) => pool.waitingCount)
  const caches: Record<string, CacheStats> = {
    verified_tokens: runtime.verifier.verifiedTokens,
    access_plans: runtime.access.cache,
    filters: runtime.services.checks.filters,
    order_by: runtime.services.checks.orders,
  }
  countedAtScrape(registry, 'tablegate_cache_hits_total', 'Lookups a cache answered.', ['cache'], () => Object.entries(caches).map(([cache, stats]) => [{ cache }, stats.hits]))
  countedAtScrape(registry, 'tablegate_cache_misses_total', 'Lookups a cache could not answer (then worked out, and kept; the filters cache keeps a filter from its second miss).', ['cache'], () => Object.entries(caches).map(([cache, stats]) => [{ cache }, stats.misses]))
  const hub = runtime.changes
  if (hub !== undefined) {
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({ name, help, registers: [registry], collect () { this.set(read()) } })
    }
    gauge('tablegate_change_followers', 'Change streams and waiting long-polls following the change log at its tail.', () => hub.following)
    gauge('tablegate_change_cohorts', 'Distinct questions among them: the statements each window of changes costs.', () => hub.cohorts)
    countedAtScrape(registry, 'tablegate_change_windows_total', 'Windows of the change log past the tail in which a followed resource changed.', [], () => [[{}, hub.counts.windows]])
    countedAtScrape(registry, 'tablegate_change_reads_total', 'Statements that read a window for a cohort: one per cohort and window, whatever its followers.', [], () => [[{}, hub.counts.reads]])
  }
  // The histogram's child per label set, found by one string: prom-client would hash the labels
  // object on every observation. Route templates, methods and statuses are few.
  const children = new Map<string, ReturnType<typeof duration.labels>>()
  return {
    registry,
    observe ({ route, method, status, seconds }) {
      const key = `${route ?? ''} ${method} ${status}`
      let child = children.get(key)
      if (child === undefined) {
        child = duration.labels(route ?? 'unmatched', method, String(status))
        children.set(key, child)
      }
      child.observe(seconds)
      if (status === 504) timeouts.inc()
      if (route === signInPath && (status === 401 || status === 429)) refusals.inc({ reason: status === 401 ? 'credentials' : 'rate-limited' })
    },
  }
}
