// `tablegate serve --workers N`: this process forks N workers (node:cluster), each a whole server
// sharing the port, and watches them. Nothing a request needs lives in one process: tokens are
// signed with keys in the database, ETags with a key derived from AUTH_SECRET, the sign-in limiter
// and revocations are in PostgreSQL, and every cache holds only what any process would compute.
import cluster, { type Worker } from 'node:cluster'
import { connectDatabases } from '../db/connect.js'
import type { ResolvedConfig } from '../config/resolve.js'
import { announceServer } from './running-server.js'
import type { CliIo } from './io.js'

/** How long after a crash a worker is started again, so a crash loop does not spin. */
const RESTART_DELAY_MS = 1_000

/**
 * Runs `count` workers until SIGINT or SIGTERM, which each worker is sent to close gracefully.
 * A worker that crashes after it listened is started again; one that fails before ever listening
 * (a config or database error every worker would meet) stops them all, with exit code 1.
 */
export async function superviseWorkers (resolved: ResolvedConfig, count: number, io: CliIo): Promise<void> {
  // The embedded database is started once, here: the workers find it running and share it.
  const db = resolved.databaseUrl === undefined ? await connectDatabases(resolved, { warn: (message) => { io.err(`tablegate: ${message}`) } }) : undefined
  const listening = new WeakSet<Worker>()
  // Counted here: cluster.workers drops a worker only once it has both exited and disconnected,
  // in either order, so on an 'exit' it may still list the worker that just ended.
  const running = new Set<Worker>()
  let stopping = false
  let failed = false
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return
    stopping = true
    for (const worker of running) worker.process.kill(signal)
  }
  const start = (): void => {
    const worker = cluster.fork()
    running.add(worker)
    worker.once('listening', () => { listening.add(worker) })
  }
  const allExited = new Promise<void>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      running.delete(worker)
      if (!stopping) {
        if (listening.has(worker)) {
          io.err(`tablegate: worker ${worker.process.pid} ended (${signal ?? `exit code ${code}`}), starting another`)
          setTimeout(start, RESTART_DELAY_MS).unref()
          return
        }
        failed = true
        stop('SIGTERM')
      }
      if (running.size === 0) resolve()
    })
  })
  process.once('SIGINT', () => { stop('SIGINT') })
  process.once('SIGTERM', () => { stop('SIGTERM') })
  for (let i = 0; i < count; i++) start()
  const withdraw = announceServer(resolved.dataDir, resolved.publicUrl)
  await allExited
  withdraw()
  await db?.close()
  // Thrown, not set as process.exitCode: the CLI's exit code is what main returns.
  if (failed) throw new Error('a worker failed to start, so all were stopped')
}
