// What the benchmarks that drive a real server share: the server as a process of its own (pinned
// to core 0 when there are two cores, PostgreSQL to core 1), its CPU and memory read from /proc,
// and a caller with a real token.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import type { BenchDatabase } from './database.js'
import { createUserStore } from '../lib/auth/users.js'
import { roleSetup } from '../lib/config/roles.js'

export const AUTH_SECRET = 'bench-secret-0123456789abcdef'
export const pinned = existsSync('/usr/bin/taskset') && cpus().length >= 2
const here = fileURLToPath(new URL('.', import.meta.url))

export function cpuTicks (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/** CPU ticks of a process and its children (the workers of a cluster). */
export function processTreeTicks (pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((child) => child !== '')
  return cpuTicks(pid) + children.reduce((sum, child) => sum + cpuTicks(Number(child)), 0)
}

export function rssMb (pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024
}

export interface BenchServer { readonly child: ChildProcess, readonly port: number }

/** A bench server's V8 heap in MB: its young generation (which V8 sizes by itself) and the rest. */
export async function heapMb (server: BenchServer): Promise<{ young: number, rest: number }> {
  const stdout = server.child.stdout!
  return await new Promise((resolve) => {
    const read = (chunk: Buffer): void => {
      const match = /heap (\d+) (\d+)/.exec(chunk.toString())
      if (match === null) return
      stdout.off('data', read)
      resolve({ young: Number(match[1]) / 1048576, rest: Number(match[2]) / 1048576 })
    }
    stdout.on('data', read)
    server.child.kill('SIGUSR2')
  })
}

/**
 * Runs benchmarks/servers/`file` (or the server script at an absolute path) in its own process, on
 * core 0 when pinning unless `unpinned`, under `wrapper` when given (a command that runs the rest,
 * as valgrind does, in the same process); resolves once it prints `ready <port>`.
 */
export async function startServer (file: string, env: Record<string, string>, nodeFlags: string[] = [], unpinned = false, wrapper: readonly string[] = []): Promise<BenchServer> {
  const pin = pinned && !unpinned
  const script = [...nodeFlags, isAbsolute(file) ? file : join(here, 'servers', file)]
  const [command, ...argv] = [...(pin ? ['taskset', '-c', '0'] : []), ...wrapper, process.execPath, ...script]
  const child = spawn(command!, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\d+)/.exec(chunk.toString())
      if (match !== null) resolve(Number(match[1]))
    })
    child.on('exit', (code) => { reject(new Error(`${file} exited with ${code}`)) })
  })
  return { child, port }
}

/** The bench server of another checkout, built there (`--baseline DIR`). */
export function checkoutServer (dir: string): string {
  return join(resolve(dir), 'dist', 'benchmarks', 'servers', 'tablegate.js')
}

/** Stops servers started by startServer and waits for their exit. */
export async function stopServers (servers: readonly BenchServer[]): Promise<void> {
  await Promise.all(servers.map(async ({ child }) => await new Promise((resolve) => {
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })))
}

/** Moves this process (the load generator) to core 1, off the servers' core, when pinning. */
export function pinLoadGenerator (): void {
  if (pinned) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
}

/** The embedded PostgreSQL's postmaster, moved to core 1 when pinning (its backends fork from it and inherit the core). */
export function pinnedPostmaster (database: BenchDatabase): number | undefined {
  if (database.dataDir === undefined) return undefined
  const postmaster = Number(readFileSync(join(database.dataDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0])
  if (pinned) execFileSync('taskset', ['-a', '-p', '-c', '1', String(postmaster)], { stdio: 'ignore' })
  return postmaster
}

/** Per autocannon connection: what its request in flight names (the row a patch takes). */
export type RequestContext = Record<string, number>

/**
 * The next row to patch, cycling; a row stays unanswered while its patch is in flight, and for
 * good when a run ended before its answer came (its next etag is unknown), and is skipped. Should
 * every row be left so (each run leaves up to one per connection), all are taken again: a stale
 * ETag's 412 counts as an error, where skipping would spin for ever.
 */
export function patchRows (count: number): { pick: (context: RequestContext) => number, answered: (context: RequestContext) => void } {
  const unanswered = new Set<number>()
  let next = 0
  return {
    pick: (context) => {
      if (unanswered.size >= count) unanswered.clear()
      let row = next++ % count
      while (unanswered.has(row)) row = next++ % count
      unanswered.add(row)
      context.row = row
      return row
    },
    answered: (context) => { unanswered.delete(context.row!) },
  }
}

/** CPU ticks of a PostgreSQL's processes by pid: the postmaster and its children (the backends); none without a postmaster. */
export function postgresTicks (postmaster: number | undefined): Map<number, number> {
  const ticks = new Map<number, number>()
  if (postmaster === undefined) return ticks
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter((pid) => pid !== '')
  for (const pid of [postmaster, ...children.map(Number)]) {
    try {
      ticks.set(pid, cpuTicks(pid))
    } catch {
      // A backend that ended between listing and reading.
    }
  }
  return ticks
}

/** Ticks used since `before`; a backend that ended in between takes its ticks with it (rare: pools keep theirs). */
export function postgresTicksSince (postmaster: number | undefined, before: Map<number, number>): number {
  let used = 0
  for (const [pid, ticks] of postgresTicks(postmaster)) used += ticks - (before.get(pid) ?? 0)
  return used
}

/** The auth store, an admin, and the `user` every benchmark request is made as, with a bearer token for an hour. */
function benchUsers (pool: pg.Pool): ReturnType<typeof createUserStore> {
  return createUserStore({ pool, schema: undefined, roles: roleSetup(['admin', 'user'], 'user'), authSecret: AUTH_SECRET, issuer: 'http://localhost:5173' })
}

export async function benchCaller (pool: pg.Pool): Promise<{ id: string, token: string }> {
  const users = benchUsers(pool)
  await users.migrate()
  await users.create({ email: 'admin@example.com', password: 'correct-horse-battery' })
  return await anotherCaller(pool, 'bench@example.com')
}

/** One more user of the login benchCaller set up, and their token. */
export async function anotherCaller (pool: pg.Pool, email: string): Promise<{ id: string, token: string }> {
  const users = benchUsers(pool)
  const caller = await users.create({ email, password: 'correct-horse-battery', role: 'user' })
  const { token } = await users.issueToken(email, { ttlSeconds: 3600 })
  return { id: caller.id, token }
}

/**
 * Nanoseconds on a CPU of a process's threads, from /proc/<pid>/task/<tid>/schedstat: unlike the
 * ticks of /proc/<pid>/stat (10 ms each), fine enough to take one request's cost.
 */
export function cpuNanos (pid: number): number {
  let used = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      used += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // A thread that ended between listing and reading.
    }
  }
  return used
}

/** Nanoseconds on a CPU of a PostgreSQL's postmaster and backends (cpuNanos); 0 without a postmaster. */
export function postgresNanos (postmaster: number | undefined): number {
  if (postmaster === undefined) return 0
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter((pid) => pid !== '')
  let used = 0
  for (const pid of [postmaster, ...children.map(Number)]) {
    try {
      used += cpuNanos(pid)
    } catch {
      // A backend that ended between listing and reading.
    }
  }
  return used
}

/** Per connection: which row its request in flight patches. */
export type Context = Record<string, number>
export interface Side {
  method: 'GET' | 'POST' | 'PATCH'
  path: (context: Context) => string
  body?: string
  headers?: (context: Context) => Record<string, string>
  onResponse?: (status: number, context: Context, headers: Record<string, unknown>) => void
}

/**
 * One measured run of a side: requests a second, latency percentiles in ms, and CPU µs a request of
 * the server, PostgreSQL and the load generator (`loadUs`: the bench process, on PostgreSQL's core
 * when pinning).
 */
export interface Measured { rps: number, p50: number, p99: number, cpuUs: number, databaseUs: number, loadUs: number, errors: number }

/**
 * `rounds` rounds of 1 s of each side (its `run`), taking turns, each round in the reverse order of
 * the last: the machine's speed moves in phases of seconds, every process on it slower or faster
 * together (one floor process served 2,268 to 4,482 requests a second from one second to the
 * next), and a run of several seconds of one side would take such a phase alone. Each side's
 * rounds, by its name.
 */
export async function takeTurns<K> (sides: ReadonlyArray<readonly [K, () => Promise<Measured>]>, rounds: number): Promise<Map<K, Measured[]>> {
  const measured = new Map<K, Measured[]>(sides.map(([name]) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of round % 2 === 0 ? sides : [...sides].reverse()) measured.get(name)!.push(await run())
  }
  return measured
}

/** Rounds of one side as one run: each figure's mean over the rounds, their errors summed. */
export function roundsMeasured (rounds: readonly Measured[]): Measured {
  const mean = (key: keyof Measured): number => rounds.reduce((sum, m) => sum + m[key], 0) / rounds.length
  return { rps: mean('rps'), p50: mean('p50'), p99: mean('p99'), cpuUs: mean('cpuUs'), databaseUs: mean('databaseUs'), loadUs: mean('loadUs'), errors: rounds.reduce((sum, m) => sum + m.errors, 0) }
}

/** The lowest and highest of each server pair's own ratio, as `0.93-1.02`: the spread a median or mean of fresh pairs is taken over. */
export function pairSpread (ratios: readonly number[]): string {
  return `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`
}
