// The change feed (`npm run bench:changes`, or `npm run bench -- --only changes`), three parts on
// one tablegate process (./servers/changes.ts) pinned to core 0, PostgreSQL (its own embedded
// cluster, with pg_stat_statements preloaded) and this process on core 1:
//   writes    creates and If-Match patches through autocannon on `feed_plain`, on `feed_logged`
//             (the same resource with `changes: {}`) and on `feed_hooked` (no log, but a no-op
//             write hook: the pipeline's transaction, which a hooked write takes, and a logged
//             one did before it logged in its own statement), in interleaved rounds of 1 s:
//             requests per second, server and PostgreSQL CPU per request, logged over plain;
//             then the server's own two update statements again from this process, without
//             HTTP (./changes-sql.ts): what the log costs PostgreSQL in SQL alone.
//   streams   1,000 Server-Sent Event streams (100 callers, 10 in each of 10 tenants, 10 streams
//             each) opened from here while creates run at a fixed rate, each in a tenant in turn:
//             every stream of that tenant must get each create exactly once, and no other's. The
//             delay of each event is taken two ways: from the event's `time` (the write, in the
//             database, just before its commit: an upper bound) and from the moment the create's
//             answer reached the writer here (after its commit: a lower bound).
//   database  PostgreSQL time spent on the feed's statements (reading the log's windows, and each
//             cohort's question of a window) per change, from pg_stat_statements (execution and
//             planning), with 10, 100 and 1,000 streams in the same 10 tenants, in interleaved rounds.
// The log holds `logRows` changes before anything is measured, whichever parts run.
// `--only "changes: streams"` (or, alone, `--only streams`) runs the parts whose name starts so.
import { request as httpRequest, type ClientRequest } from 'node:http'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { AUTH_SECRET, patchRows, pinLoadGenerator, pinned, pinnedPostmaster, postgresTicks, postgresTicksSince, processTreeTicks, startServer, stopServers, type BenchServer, type RequestContext } from './harness.js'
import { benchIssuer } from './issuer.js'
import { sqlWritesPart } from './changes-sql.js'

export interface ChangeBenchOptions {
  /** Seconds per part: the writes' rounds (1 s each), and a third of the streams' writing time. */
  readonly seconds: number
  readonly repeat: number
  readonly connections: number
  /** `changes`, `changes: writes`, `streams`, …: the parts whose name starts with what follows `changes`. */
  readonly only: string | undefined
  /** Creates per second while streams are open. */
  readonly rate: number
  /** Rows seeded in each table, spread over the tenants. */
  readonly rows: number
  /** Changes of `feed_logged` in the log before anything is measured. */
  readonly logRows: number
  /** A V8 CPU profile of the server, written into the working directory when it exits. */
  readonly profile?: boolean
}

/**
 * Creates per second while streams are open; rows seeded in each table; and changes the log holds
 * before anything is measured (a day's retention at about one a second), as PostgreSQL's choice of
 * plans for the feed's statements follows the log's size.
 */
export const CHANGE_DEFAULTS = { rate: 50, rows: 10_000, logRows: 100_000 }
const TENANTS = 10
const CALLERS_PER_TENANT = 10
const STREAMS_PER_CALLER = 10
const SUBSCRIBERS = [10, 100, 1000]
const PARTS = ['writes', 'streams', 'database'] as const
/** How long the streams may take to receive the last events once the writes have stopped. */
const DRAIN_MS = 10_000
const tenantName = (t: number): string => `t${t}`
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
/** Milliseconds on this process's monotonic clock. */
const clock = (): number => performance.now()

/** An RFC 3339 time with microseconds as ms since the epoch, the fraction kept (Date.parse stops at ms). */
function timeMs (text: string): number {
  const match = /^(.+?:\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)$/.exec(text)
  if (match === null) throw new Error(`not an RFC 3339 time: ${text}`)
  return Date.parse(`${match[1]!}${match[3]!}`) + Number(`0${match[2] ?? ''}`) * 1000
}

function quantile (sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function createTables (pool: pg.Pool, rows: number): Promise<void> {
  for (const table of ['feed_plain', 'feed_logged', 'feed_hooked']) {
    await pool.query(`DROP TABLE IF EXISTS ${table};
      CREATE TABLE ${table} (id bigserial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'draft', total numeric(12, 2),
        placed_at timestamptz, tenant_id text NOT NULL, version integer NOT NULL DEFAULT 1)`)
    await pool.query(`INSERT INTO ${table} (title, status, total, placed_at, tenant_id)
      SELECT 'Order ' || n, (ARRAY['draft', 'open', 'locked'])[1 + n % 3], (n % 1000) * 1.25, timestamptz '2026-01-01' + n * interval '1 minute', 't' || (n % ${TENANTS})
      FROM generate_series(1, $1::int) AS n`, [rows])
    await pool.query(`CREATE INDEX ${table}_tenant ON ${table} (tenant_id, id)`)
    await pool.query(`VACUUM (ANALYZE) ${table}`)
  }
}

// --- the streams -----------------------------------------------------------------------------------

/** An event as received: its key, when (this process's monotonic clock, and the wall clock the database's `time` is on), and that `time`. */
interface Received { readonly key: string, readonly at: number, readonly wall: number, readonly time: number }

/** One open stream of `:changes`, read here: how often each key came, and every event as received. */
class Stream {
  readonly counts = new Map<string, number>()
  readonly ready: Promise<void>
  /** The named event the server ended the stream with, if it did. */
  ended: string | undefined
  #request: ClientRequest | undefined
  #buffer = ''

  constructor (port: number, token: string, readonly tenant: number, private readonly received: Received[]) {
    this.ready = new Promise((resolve, reject) => {
      // An agent of its own for each: no pool limits how many streams are open at once.
      this.#request = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/feed_logged:changes', agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (response) => {
        response.setEncoding('utf8')
        if (response.statusCode !== 200) {
          let body = ''
          response.on('data', (chunk: string) => { body += chunk })
          response.on('end', () => { reject(new Error(`:changes answered ${response.statusCode}: ${body}`)) })
          return
        }
        response.on('data', (chunk: string) => { this.#read(chunk, clock(), Date.now(), resolve) })
      })
      this.#request.on('error', (err) => { reject(err) })
      this.#request.end()
    })
  }

  #read (chunk: string, at: number, wall: number, ready: () => void): void {
    this.#buffer += chunk
    for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end)
      this.#buffer = this.#buffer.slice(end + 2)
      let name: string | undefined
      let data: string | undefined
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7)
        else if (line.startsWith('data: ')) data = line.slice(6)
      }
      if (name === 'ready') ready()
      else if (name !== undefined) this.ended = `${name} ${data ?? ''}`
      else if (data !== undefined) {
        const event = JSON.parse(data) as { key: string, time: string }
        this.counts.set(event.key, (this.counts.get(event.key) ?? 0) + 1)
        this.received.push({ key: event.key, at, wall, time: timeMs(event.time) })
      }
    }
  }

  close (): void {
    this.#request?.destroy()
  }
}

/** Writes made while streams are open: each create's tenant, when its answer came, and how long it took. */
interface Written { readonly tenant: number, readonly answeredAt: number, readonly took: number, readonly measured: boolean }

export async function changeScenarios (options: ChangeBenchOptions): Promise<void> {
  const which = (options.only ?? '').replace(/^changes[\s:,]*/, '')
  const parts = PARTS.filter((part) => part.startsWith(which))
  if (parts.length === 0) return
  const database = await benchDatabase({ preload: ['pg_stat_statements'] })
  const postmaster = pinnedPostmaster(database)
  pinLoadGenerator()
  const pool = new pg.Pool({ connectionString: database.url, max: 2 })
  // A connection the database's stop ends is no crash of the run before its cleanup.
  pool.on('error', () => {})
  let server: BenchServer | undefined
  try {
    await createTables(pool, options.rows)
    const statistics = (await pool.query<{ on: boolean }>("SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS on")).rows[0]!.on
    // Planning counts too: PostgreSQL may plan a prepared statement afresh on each run (a custom plan).
    if (statistics) {
      for (const statement of ['CREATE EXTENSION IF NOT EXISTS pg_stat_statements', 'ALTER SYSTEM SET pg_stat_statements.track_planning = on', 'SELECT pg_reload_conf()']) await pool.query(statement)
    }
    const issuer = await benchIssuer()
    server = await startServer('changes.js', { BENCH_DATABASE_URL: database.url, BENCH_AUTH_SECRET: AUTH_SECRET, BENCH_VERIFIER_JWK: JSON.stringify(issuer.jwk) },
      options.profile === true ? ['--cpu-prof', `--cpu-prof-dir=${process.cwd()}`] : [])
    const port = server.port
    // The server made the log at its start; the log's past, in one transaction before any reader.
    await pool.query(`INSERT INTO tablegate_changes.log (resource, after) SELECT 'feed_logged', to_jsonb(f.*)
      FROM generate_series(1, $1::int) AS n JOIN feed_logged f ON f.id = 1 + (n - 1) % $2`, [options.logRows, options.rows])
    await pool.query('VACUUM (ANALYZE) tablegate_changes.log')
    const base = `http://127.0.0.1:${port}`
    const writers: string[] = []
    const callers: string[][] = []
    for (let t = 0; t < TENANTS; t++) {
      writers.push(await issuer.sign(`writer-${t}`, { kid: true, claims: { tenant: tenantName(t) } }))
      const own: string[] = []
      for (let u = 0; u < CALLERS_PER_TENANT; u++) own.push(await issuer.sign(`caller-${t}-${u}`, { kid: true, claims: { tenant: tenantName(t) } }))
      callers.push(own)
    }
    console.log(`\nchange feed: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; node ${process.version}; ${options.rows} rows a table in ${TENANTS} tenants; ${options.logRows} changes in the log at the start; ${pinned ? 'server on core 0, PostgreSQL and the load generator on core 1' : 'not pinned'}`)

    const hub = async (): Promise<{ cohorts: number, following: number }> => await (await fetch(`${base}/bench/changes-hub`)).json() as { cohorts: number, following: number }
    /** Waits until the hub follows `count` streams (all joined their cohorts), or says how far it got. */
    const following = async (count: number): Promise<{ cohorts: number, following: number }> => {
      const until = Date.now() + 30_000
      for (;;) {
        const counts = await hub()
        if (counts.following === count || Date.now() > until) return counts
        await sleep(50)
      }
    }
    /** Opens `perTenant` streams in each tenant, spread over its first callers, at most 10 each. */
    const openStreams = async (perTenant: number, received: Received[]): Promise<Stream[]> => {
      const streams: Stream[] = []
      const callersUsed = Math.min(CALLERS_PER_TENANT, perTenant)
      for (let t = 0; t < TENANTS; t++) {
        for (let s = 0; s < perTenant; s++) streams.push(new Stream(port, callers[t]![s % callersUsed]!, t, received))
      }
      await Promise.all(streams.map(async (stream) => await stream.ready))
      const counts = await following(streams.length)
      if (counts.following !== streams.length) throw new Error(`the hub follows ${counts.following} of ${streams.length} streams`)
      return streams
    }
    const closeStreams = async (streams: readonly Stream[]): Promise<void> => {
      for (const stream of streams) stream.close()
      await following(0)
    }

    /**
     * Creates at `rate` a second for `ms`, one tenant after another, into `written` by key; those
     * made while `measured` is true are marked so. Resolves once every answer has come.
     */
    const writeAtRate = async (ms: number, written: Map<string, Written>, measured: boolean): Promise<number> => {
      const started = clock()
      const answers: Array<Promise<void>> = []
      let failed = 0
      for (let i = 0; started + (i * 1000) / options.rate < started + ms; i++) {
        const due = started + (i * 1000) / options.rate
        if (due > clock()) await sleep(due - clock())
        const tenant = i % TENANTS
        const sent = clock()
        answers.push(fetch(`${base}/api/v1/feed_logged`, {
          method: 'POST',
          headers: { authorization: `Bearer ${writers[tenant]!}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `streamed ${i}`, status: 'open', total: '9.99' }),
        }).then(async (response) => {
          const answeredAt = clock()
          const body = await response.json() as { id?: string }
          if (response.status !== 201 || body.id === undefined) failed++
          else written.set(String(body.id), { tenant, answeredAt, took: answeredAt - sent, measured })
        }, () => { failed++ }))
      }
      await Promise.all(answers)
      return failed
    }
    /** How many events the streams should get for `written`, and waits (up to DRAIN_MS) until they have, and a little more for any twice. */
    const drain = async (streams: readonly Stream[], received: readonly Received[], written: ReadonlyMap<string, Written>): Promise<number> => {
      const perTenant = new Array<number>(TENANTS).fill(0)
      for (const { tenant } of written.values()) perTenant[tenant]!++
      const expected = streams.reduce((sum, stream) => sum + perTenant[stream.tenant]!, 0)
      const until = Date.now() + DRAIN_MS
      while (received.length < expected && Date.now() < until) await sleep(20)
      await sleep(300)
      return expected
    }
    /** Each stream's events against what its tenant wrote: missing, twice or more, and another tenant's; and streams the server ended. */
    const exactness = (streams: readonly Stream[], written: ReadonlyMap<string, Written>): { missing: number, repeated: number, foreign: number, ended: number } => {
      let missing = 0
      let repeated = 0
      let foreign = 0
      let ended = 0
      for (const stream of streams) {
        if (stream.ended !== undefined) ended++
        for (const [key, { tenant }] of written) if (tenant === stream.tenant && !stream.counts.has(key)) missing++
        for (const [key, count] of stream.counts) {
          if (count > 1) repeated += count - 1
          if (written.get(key)?.tenant !== stream.tenant) foreign += count
        }
      }
      return { missing, repeated, foreign, ended }
    }

    if (parts.includes('writes')) {
      await writesPart(base, writers[0]!, options, server, postmaster)
      await sqlWritesPart(base, database.url, postmaster, options.connections, options.seconds * options.repeat)
    }

    if (parts.includes('streams')) {
      // The same creates with no stream open, after 2 s of them: what the writer waits for when no one follows.
      const alone = new Map<string, Written>()
      await writeAtRate(2000, alone, false)
      await writeAtRate(options.seconds * 1000, alone, true)
      const received: Received[] = []
      const started = clock()
      const streams = await openStreams(CALLERS_PER_TENANT * STREAMS_PER_CALLER, received)
      const opened = clock() - started
      const counts = await hub()
      const written = new Map<string, Written>()
      try {
        // A warm-up at the same rate, then the measured writes; every event of both is counted.
        let failed = await writeAtRate(2000, written, false)
        const before = processTreeTicks(server.child.pid!)
        const databaseBefore = postgresTicks(postmaster)
        const writing = options.seconds * 3 * 1000
        failed += await writeAtRate(writing, written, true)
        const expected = await drain(streams, received, written)
        const ticks = processTreeTicks(server.child.pid!) - before
        const databaseTicks = postgresTicksSince(postmaster, databaseBefore)
        const { missing, repeated, foreign, ended } = exactness(streams, written)
        const fromTime: number[] = []
        const fromAnswer: number[] = []
        for (const { key, at, wall, time } of received) {
          const write = written.get(key)
          if (write?.measured !== true) continue
          fromTime.push(wall - time)
          fromAnswer.push(at - write.answeredAt)
        }
        fromTime.sort((a, b) => a - b)
        fromAnswer.sort((a, b) => a - b)
        const measuredWrites = [...written.values()].filter((w) => w.measured).length
        const took = (writes: ReadonlyMap<string, Written>): number[] => [...writes.values()].filter((w) => w.measured).map((w) => w.took).sort((a, b) => a - b)
        const events = fromTime.length
        console.log(`\nstreams: ${streams.length} open (${TENANTS} tenants × ${CALLERS_PER_TENANT} callers × ${STREAMS_PER_CALLER} streams; the hub follows ${counts.following} in ${counts.cohorts} cohorts), opened in ${(opened / 1000).toFixed(1)} s; ` +
          `creates at ${options.rate}/s, a tenant after another, ${writing / 1000} s measured after 2 s of warm-up`)
        console.log(`${'delivery, write → client'.padEnd(44)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}`)
        console.log(`${'from the event\'s time (upper bound)'.padEnd(44)}${quantile(fromTime, 0.5).toFixed(1).padStart(8)}${quantile(fromTime, 0.99).toFixed(1).padStart(8)}${fromTime.at(-1)!.toFixed(1).padStart(8)}`)
        console.log(`${'from the create\'s answer (lower bound)'.padEnd(44)}${quantile(fromAnswer, 0.5).toFixed(1).padStart(8)}${quantile(fromAnswer, 0.99).toFixed(1).padStart(8)}${fromAnswer.at(-1)!.toFixed(1).padStart(8)}`)
        console.log(`${'create answered (the writer\'s wait)'.padEnd(44)}${quantile(took(written), 0.5).toFixed(1).padStart(8)}${quantile(took(written), 0.99).toFixed(1).padStart(8)}${took(written).at(-1)!.toFixed(1).padStart(8)}`)
        console.log(`${'  the same with no stream open'.padEnd(44)}${quantile(took(alone), 0.5).toFixed(1).padStart(8)}${quantile(took(alone), 0.99).toFixed(1).padStart(8)}${took(alone).at(-1)!.toFixed(1).padStart(8)}`)
        console.log(`events received ${received.length} of ${expected} expected (all writes, warm-up included); missing ${missing}, more than once ${repeated}, another tenant's ${foreign}; streams ended by the server ${ended}; failed creates ${failed}`)
        console.log(`while measured: ${measuredWrites} creates, ${events} events; server CPU ${(ticks * 10_000 / measuredWrites).toFixed(0)} µs a create (${(ticks * 10_000 / events).toFixed(1)} µs an event), PostgreSQL CPU ${(databaseTicks * 10_000 / measuredWrites).toFixed(0)} µs a create`)
      } finally {
        await closeStreams(streams)
      }
    }

    if (parts.includes('database')) {
      if (!statistics) {
        console.log('\ndatabase time per change: pg_stat_statements is not loaded in the given database (shared_preload_libraries): not measured')
      } else {
        const runs = new Map<number, FeedCost[]>(SUBSCRIBERS.map((n) => [n, []]))
        for (let r = 0; r < options.repeat; r++) {
          // Interleaved: each round takes the sizes in another order.
          const order = r % 2 === 0 ? SUBSCRIBERS : [...SUBSCRIBERS].reverse()
          for (const count of order) {
            const received: Received[] = []
            const streams = await openStreams(count / TENANTS, received)
            try {
              const written = new Map<string, Written>()
              const { cohorts } = await hub()
              await writeAtRate(1000, written, false)
              await drain(streams, received, written)
              await pool.query('SELECT pg_stat_statements_reset()')
              const before = processTreeTicks(server.child.pid!)
              const databaseBefore = postgresTicks(postmaster)
              written.clear()
              received.length = 0
              for (const stream of streams) stream.counts.clear()
              const failed = await writeAtRate(options.seconds * 2 * 1000, written, true)
              const expected = await drain(streams, received, written)
              const ticks = processTreeTicks(server.child.pid!) - before
              const databaseTicks = postgresTicksSince(postmaster, databaseBefore)
              const cost = await feedCost(pool, written.size)
              const { missing, repeated, foreign, ended } = exactness(streams, written)
              runs.get(count)!.push({ ...cost, cohorts, serverUs: ticks * 10_000 / written.size, databaseUs: databaseTicks * 10_000 / written.size, received: received.length, expected, wrong: missing + repeated + foreign + ended + failed })
            } finally {
              await closeStreams(streams)
            }
          }
        }
        const of = (count: number, key: keyof FeedCost): number => median(runs.get(count)!.map((c) => c[key]))
        const first = of(SUBSCRIBERS[0]!, 'totalUs')
        console.log(`\ndatabase time per change (pg_stat_statements: execution + planning), creates at ${options.rate}/s for ${options.seconds * 2} s, ${options.repeat} round(s), median`)
        console.log(`${'streams'.padEnd(9)}${'cohorts'.padStart(8)}${'windows'.padStart(9)}${'questions'.padStart(10)}${'changes'.padStart(9)}${'window µs'.padStart(11)}${'question µs'.padStart(13)}${'feed µs'.padStart(9)}` +
          `${'× 10'.padStart(7)}${'planning µs'.padStart(13)}${'log insert µs'.padStart(15)}${'pg CPU µs'.padStart(11)}${'server CPU µs'.padStart(15)}${'events'.padStart(13)}${'wrong'.padStart(7)}`)
        for (const count of SUBSCRIBERS) {
          console.log(`${String(count).padEnd(9)}${of(count, 'cohorts').toFixed(0).padStart(8)}${of(count, 'windows').toFixed(0).padStart(9)}${of(count, 'questions').toFixed(0).padStart(10)}${of(count, 'changes').toFixed(0).padStart(9)}` +
            `${of(count, 'windowUs').toFixed(0).padStart(11)}${of(count, 'questionUs').toFixed(0).padStart(13)}${of(count, 'totalUs').toFixed(0).padStart(9)}${(of(count, 'totalUs') / first).toFixed(2).padStart(7)}${of(count, 'planUs').toFixed(0).padStart(13)}` +
            `${of(count, 'insertUs').toFixed(0).padStart(15)}${of(count, 'databaseUs').toFixed(0).padStart(11)}${of(count, 'serverUs').toFixed(0).padStart(15)}` +
            `${`${of(count, 'received')}/${of(count, 'expected')}`.padStart(13)}${of(count, 'wrong').toFixed(0).padStart(7)}`)
        }
        console.log('per change: window µs (the log\'s windows and horizon), question µs (the cohorts\' statements), feed µs (both; × 10: over 10 streams\'; planning: of feed µs), the log\'s insert in the write; ' +
          'pg CPU and server CPU per change from /proc, the write itself included; events received/expected; wrong: events missing, twice, of another tenant, streams ended, failed creates')
      }
    }
  } finally {
    if (server !== undefined) await stopServers([server])
    await pool.end()
    await database.stop()
  }
}

interface FeedCost {
  readonly cohorts: number
  /** Reads of the log's next window (the hub's, and catch-ups'). */
  readonly windows: number
  /** Cohorts' questions of a window. */
  readonly questions: number
  readonly changes: number
  /** PostgreSQL time per change: window reads (and the horizon), questions, both, and the log's own insert in the write. */
  readonly windowUs: number
  readonly questionUs: number
  readonly totalUs: number
  /** Of totalUs, planning: the feed's statements are prepared, yet PostgreSQL may plan them afresh on each run. */
  readonly planUs: number
  readonly insertUs: number
  /** CPU per change from /proc, the write itself included: the server's, PostgreSQL's. */
  readonly serverUs: number
  readonly databaseUs: number
  readonly received: number
  readonly expected: number
  /** Events missing, repeated or of another tenant, streams the server ended, and failed creates. */
  readonly wrong: number
}

/** The feed's statements since the last reset, by their text: the log's windows and horizon, the cohorts' questions, the log's inserts. */
async function feedCost (pool: pg.Pool, changes: number): Promise<Omit<FeedCost, 'cohorts' | 'serverUs' | 'databaseUs' | 'received' | 'expected' | 'wrong'>> {
  const { rows } = await pool.query<{ query: string, calls: string, ms: number, plan_ms: number }>(`SELECT query, calls::text, total_exec_time + total_plan_time AS ms, total_plan_time AS plan_ms
    FROM pg_stat_statements WHERE query LIKE '%tablegate_changes%' AND query NOT LIKE '%pg_stat_statements%'`)
  let windows = 0
  let questions = 0
  let windowMs = 0
  let questionMs = 0
  let insertMs = 0
  let planMs = 0
  for (const row of rows) {
    const insert = /^\s*INSERT INTO "tablegate_changes"\."log"/.test(row.query)
    if (!insert) planMs += row.plan_ms
    if (row.query.includes('jsonb_populate_record')) {
      questions += Number(row.calls)
      questionMs += row.ms
    } else if (insert) {
      insertMs += row.ms
    } else {
      // The window (its horizon, the changes after the tail), a horizon alone, a long transaction's end, pruning.
      if (row.query.includes('AS waiting')) windows += Number(row.calls)
      windowMs += row.ms
    }
  }
  const per = (ms: number): number => ms * 1000 / changes
  return { windows, questions, changes, windowUs: per(windowMs), questionUs: per(questionMs), totalUs: per(windowMs + questionMs), planUs: per(planMs), insertUs: per(insertMs) }
}

interface Side {
  readonly method: 'POST' | 'PATCH'
  readonly path: (context: RequestContext) => string
  readonly body: string
  readonly headers: (context: RequestContext) => Record<string, string>
  readonly onResponse?: (status: number, context: RequestContext, headers: Record<string, unknown>) => void
}

/** `loadMicros`: the load generator's CPU (this process, on PostgreSQL's core), in µs like `process.cpuUsage()`. */
interface Measured { requests: number, seconds: number, ticks: number, databaseTicks: number, loadMicros: number, errors: number }

/**
 * Writes with the change log off, behind a no-op hook, and on: creates, and patches with If-Match
 * (each row's next ETag learned from its answer), one caller of tenant t0, `connections` at once,
 * rounds of 1 s taking the three resources in turn (in reverse every other round), after a 1 s
 * warm-up of each.
 */
async function writesPart (base: string, token: string, options: ChangeBenchOptions, server: BenchServer, postmaster: number | undefined): Promise<void> {
  const auth = { authorization: `Bearer ${token}` }
  const json = { 'content-type': 'application/json' }
  const resources = ['feed_plain', 'feed_hooked', 'feed_logged'] as const
  const sides = new Map<string, Side>()
  for (const resource of resources) {
    // The caller's rows (tenant t0) and their ETags.
    const etags: Array<[string, string]> = []
    let cursor = ''
    do {
      const response = await fetch(`${base}/api/v1/${resource}?page_size=500&fields=id${cursor === '' ? '' : `&page_token=${encodeURIComponent(cursor)}`}`, { headers: auth })
      const body = await response.json() as { items: Array<{ id: string, etag: string }>, next_page_token?: string }
      if (!response.ok) throw new Error(`${resource} answered ${response.status}: ${JSON.stringify(body)}`)
      for (const item of body.items) etags.push([item.id, item.etag])
      cursor = body.next_page_token ?? ''
    } while (cursor !== '')
    const patches = patchRows(etags.length)
    sides.set(`create ${resource}`, {
      method: 'POST',
      path: () => `/api/v1/${resource}`,
      body: JSON.stringify({ title: 'new order', status: 'open', total: '9.99' }),
      headers: () => json,
    })
    sides.set(`update ${resource}`, {
      method: 'PATCH',
      path: (c) => `/api/v1/${resource}/${etags[patches.pick(c)]![0]}`,
      body: JSON.stringify({ status: 'locked' }),
      headers: (c) => ({ ...json, 'if-match': etags[c.row!]![1] }),
      onResponse: (status, c, headers) => {
        if (status === 200) etags[c.row!]![1] = String(headers.etag)
        patches.answered(c)
      },
    })
  }
  const measure = async (side: Side, seconds: number): Promise<Measured> => {
    const before = processTreeTicks(server.child.pid!)
    const databaseBefore = postgresTicks(postmaster)
    const loadBefore = process.cpuUsage()
    const result = await autocannon({
      url: base,
      connections: options.connections,
      duration: seconds,
      requests: [{
        method: side.method,
        setupRequest: (request, context) => ({ ...request, path: side.path(context as RequestContext), headers: { ...auth, ...side.headers(context as RequestContext) }, body: side.body }),
        ...(side.onResponse === undefined ? {} : { onResponse: (status: number, _body: string, context: object, headers?: Record<string, unknown>) => { side.onResponse!(status, context as RequestContext, headers ?? {}) } }),
      }],
    })
    const load = process.cpuUsage(loadBefore)
    return { requests: result.requests.total, seconds, ticks: processTreeTicks(server.child.pid!) - before, databaseTicks: postgresTicksSince(postmaster, databaseBefore), loadMicros: load.user + load.system, errors: result.errors + result.non2xx }
  }
  const totals = new Map<string, Measured>([...sides.keys()].map((name) => [name, { requests: 0, seconds: 0, ticks: 0, databaseTicks: 0, loadMicros: 0, errors: 0 }]))
  for (const side of sides.values()) await measure(side, 1)
  const rounds = options.seconds * options.repeat
  for (let round = 0; round < rounds; round++) {
    for (const operation of ['create', 'update']) {
      for (const resource of round % 2 === 0 ? resources : [...resources].reverse()) {
        const name = `${operation} ${resource}`
        const measured = await measure(sides.get(name)!, 1)
        const total = totals.get(name)!
        for (const key of Object.keys(measured) as Array<keyof Measured>) total[key] += measured[key]
      }
    }
  }
  console.log(`\n${`writes (${rounds} rounds of 1 s)`.padEnd(28)}${'off r/s'.padStart(9)}${'hook r/s'.padStart(10)}${'on r/s'.padStart(8)}${'on/off'.padStart(8)}${'on/hook'.padStart(9)}` +
    `${'CPU µs off/hook/on'.padStart(20)}${'pg µs off/hook/on'.padStart(19)}${'load µs off/hook/on'.padStart(21)}${'err'.padStart(5)}`)
  for (const [operation, title] of [['create', 'create (POST)'], ['update', 'update (PATCH, If-Match)']] as const) {
    const [off, hook, on] = resources.map((resource) => totals.get(`${operation} ${resource}`)!) as [Measured, Measured, Measured]
    const rps = (m: Measured): number => m.requests / m.seconds
    const three = (key: 'ticks' | 'databaseTicks'): string => [off, hook, on].map((m) => (m[key] * 10_000 / m.requests).toFixed(0)).join('/')
    const load = [off, hook, on].map((m) => (m.loadMicros / m.requests).toFixed(0)).join('/')
    console.log(`${title.padEnd(28)}${rps(off).toFixed(0).padStart(9)}${rps(hook).toFixed(0).padStart(10)}${rps(on).toFixed(0).padStart(8)}${(rps(on) / rps(off)).toFixed(2).padStart(8)}${(rps(on) / rps(hook)).toFixed(2).padStart(9)}` +
      `${three('ticks').padStart(20)}${three('databaseTicks').padStart(19)}${load.padStart(21)}${String(off.errors + hook.errors + on.errors).padStart(5)}`)
  }
  console.log('off: feed_plain (one statement a write); hook: feed_hooked (a no-op write hook: the pipeline transaction, no log); on: feed_logged (changes: {})')
  console.log('load µs: the load generator\'s CPU a request (this process), on the core PostgreSQL has: whichever of the two cores is full sets the throughput')
}

// Run alone: `npm run bench:changes [-- --seconds 5 --repeat 1 --rate 50 --log-rows 100000 --only streams --profile]`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values: args } = parseArgs({ options: {
    rows: { type: 'string', default: String(CHANGE_DEFAULTS.rows) },
    'log-rows': { type: 'string', default: String(CHANGE_DEFAULTS.logRows) },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    repeat: { type: 'string', default: '1' },
    rate: { type: 'string', default: String(CHANGE_DEFAULTS.rate) },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
  } })
  pinLoadGenerator()
  await changeScenarios({ profile: args.profile, rows: Number(args.rows), logRows: Number(args['log-rows']), seconds: Number(args.seconds), connections: Number(args.connections), repeat: Number(args.repeat), rate: Number(args.rate), only: args.only })
}
