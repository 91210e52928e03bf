// `npm run bench:export [-- --rows 1000000 --repeat 2 --profile]`: GET /bench_orders:export as NDJSON
// and as CSV through the real server (its own process, a real token, the row filter and hidden field
// of benchmarks/servers/tablegate.ts), read to the end by this process: rows per second, the
// server's CPU, and its resident memory sampled from /proc while the rows stream (its peak over
// all exports, less the RSS after the warm-up, must stay under 50 MB whatever the row count: RSS
// seldom shrinks, so a rise in one run is still counted in the next). Beside it the physical limit:
// the same rows through `COPY (SELECT ...) TO STDOUT` in `psql`.
import { spawn, spawnSync } from 'node:child_process'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { seedCards, seedOrders } from './bench-orders.js'
import { AUTH_SECRET, benchCaller, cpuTicks, pinned, pinnedPostmaster, rssMb, startServer, stopServers } from './harness.js'

const { values: args } = parseArgs({ options: {
  rows: { type: 'string', default: '1000000' },
  repeat: { type: 'string', default: '2' },
  profile: { type: 'boolean', default: false },
} })
const ROWS = Number(args.rows)
const REPEAT = Number(args.repeat)
/** The bound the issue sets on the server's memory growth during an export. */
const MAX_GROWTH_MB = 50
const RSS_SAMPLE_MS = 10

const database = await benchDatabase()
pinnedPostmaster(database)
const pool = new pg.Pool({ connectionString: database.url, max: 2 })
// A failed setup stops the database too, so no PostgreSQL is left behind.
const setUp = await (async () => {
  const caller = await benchCaller(pool)
  await seedOrders(pool, ROWS, caller.id)
  await seedCards(pool, 1)
  // --profile: a V8 CPU profile of the server, written when it exits (open it in Chrome's DevTools).
  const server = await startServer('tablegate.js', { BENCH_DATABASE_URL: database.url, BENCH_AUTH_SECRET: AUTH_SECRET },
    args.profile === true ? ['--cpu-prof', `--cpu-prof-dir=${process.cwd()}`] : [])
  return { caller, server }
})().catch(async (err: unknown) => {
  await pool.end()
  await database.stop()
  throw err
})
const { caller, server } = setUp
const pid = server.child.pid!

interface Measured { seconds: number, rows: number, bytes: number, cpuSeconds: number, rssPeakMb: number }

/** Reads a byte stream to its end, counting bytes and lines; the server's RSS is sampled meanwhile. */
async function drain (body: AsyncIterable<Uint8Array>, started: bigint): Promise<Omit<Measured, 'cpuSeconds'>> {
  let rssPeakMb = rssMb(pid)
  const sampling = setInterval(() => { rssPeakMb = Math.max(rssPeakMb, rssMb(pid)) }, RSS_SAMPLE_MS)
  let bytes = 0
  let lines = 0
  try {
    for await (const chunk of body) {
      bytes += chunk.length
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
    }
  } finally {
    clearInterval(sampling)
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, rows: lines, bytes, rssPeakMb: Math.max(rssPeakMb, rssMb(pid)) }
}

async function exportOnce (format: 'ndjson' | 'csv', filter?: string): Promise<Measured> {
  const cpuBefore = cpuTicks(pid)
  const started = process.hrtime.bigint()
  const query = `format=${format}${filter === undefined ? '' : `&filter=${encodeURIComponent(filter)}`}`
  const response = await fetch(`http://127.0.0.1:${server.port}/api/v1/bench_orders:export?${query}`, { headers: { authorization: `Bearer ${caller.token}` } })
  if (!response.ok || response.body === null) throw new Error(`export answered ${response.status}: ${await response.text()}`)
  const read = await drain(response.body, started)
  // The CSV header is a line but no row.
  return { ...read, rows: read.rows - (format === 'csv' ? 1 : 0), cpuSeconds: (cpuTicks(pid) - cpuBefore) / 100 }
}

/** The caller's rows and fields (cost is hidden from them) in the export's order, through COPY in psql; the owner is a psql variable. */
const SELECT = "SELECT id, title, status, total, placed_at, owner_id FROM bench_orders WHERE owner_id = :'owner' ORDER BY id"
const COPIES = {
  ndjson: `COPY (SELECT row_to_json(o) FROM (${SELECT}) o) TO STDOUT`,
  csv: `COPY (${SELECT}) TO STDOUT WITH (FORMAT csv, HEADER)`,
}

async function copyOnce (format: 'ndjson' | 'csv'): Promise<Measured> {
  const started = process.hrtime.bigint()
  // psql interpolates variables in commands read from stdin, not in -c.
  const psql = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-v', `owner=${caller.id}`, '-d', database.url], { stdio: ['pipe', 'pipe', 'inherit'] })
  psql.stdin.end(`${COPIES[format]};\n`)
  const exited = new Promise<number | null>((resolve) => { psql.once('exit', resolve) })
  const read = await drain(psql.stdout, started)
  if (await exited !== 0) throw new Error(`psql ${format} COPY failed`)
  return { ...read, rows: read.rows - (format === 'csv' ? 1 : 0), cpuSeconds: 0 }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
const psqlFound = spawnSync('psql', ['--version']).status === 0

try {
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; node ${process.version}; ${ROWS} rows; ${REPEAT} run(s), median rate; ${pinned ? 'server on core 0, PostgreSQL on core 1' : 'not pinned'}`)
  // Warm-up: the route, the plan caches and the JIT see both formats before anything is measured.
  for (const format of ['ndjson', 'csv'] as const) await exportOnce(format, 'id <= 10000')
  const baselineMb = rssMb(pid)
  console.log(`server RSS after the warm-up: ${baselineMb.toFixed(0)} MB`)
  console.log(`${'export'.padEnd(16)}${'rows/s'.padStart(11)}${'MB/s'.padStart(8)}${'seconds'.padStart(9)}${'server µs/row'.padStart(15)}${'RSS peak'.padStart(10)}${'growth'.padStart(8)}`)
  let peakMb = baselineMb
  for (const format of ['ndjson', 'csv'] as const) {
    const runs: Measured[] = []
    for (let r = 0; r < REPEAT; r++) runs.push(await exportOnce(format))
    for (const run of runs) if (run.rows !== ROWS) throw new Error(`${format} export gave ${run.rows} rows, not ${ROWS}`)
    peakMb = Math.max(peakMb, ...runs.map((r) => r.rssPeakMb))
    const seconds = median(runs.map((r) => r.seconds))
    console.log(`${`tablegate ${format}`.padEnd(16)}${(ROWS / seconds).toFixed(0).padStart(11)}${(median(runs.map((r) => r.bytes)) / seconds / 1e6).toFixed(1).padStart(8)}${seconds.toFixed(2).padStart(9)}` +
      `${(median(runs.map((r) => r.cpuSeconds)) * 1e6 / ROWS).toFixed(2).padStart(15)}${`${peakMb.toFixed(0)} MB`.padStart(10)}${`${(peakMb - baselineMb).toFixed(0)} MB`.padStart(8)}`)
  }
  if (!psqlFound) {
    console.log('psql not found: COPY baseline skipped')
  } else {
    for (const format of ['ndjson', 'csv'] as const) {
      const runs: Measured[] = []
      for (let r = 0; r < REPEAT; r++) runs.push(await copyOnce(format))
      const seconds = median(runs.map((r) => r.seconds))
      console.log(`${`COPY ${format}`.padEnd(16)}${(ROWS / seconds).toFixed(0).padStart(11)}${(median(runs.map((r) => r.bytes)) / seconds / 1e6).toFixed(1).padStart(8)}${seconds.toFixed(2).padStart(9)}`)
    }
  }
  const growth = peakMb - baselineMb
  console.log(`server RSS growth over all exports: ${growth.toFixed(0)} MB (bound ${MAX_GROWTH_MB} MB): ${growth < MAX_GROWTH_MB ? 'flat' : 'TOO MUCH'}`)
  if (growth >= MAX_GROWTH_MB) process.exitCode = 1
} finally {
  await stopServers([server])
  await pool.end()
  await database.stop()
}
