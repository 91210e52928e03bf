// `tablegate serve`: the API on a port until SIGINT/SIGTERM, then a graceful close: no new
// requests, those in flight finish (bounded), then the pools and the embedded database close.
import cluster, { type Worker } from 'node:cluster'
import { isIP, type AddressInfo } from 'node:net'
import { createServer } from '../server.js'
import { loadResolvedConfig } from './host.js'
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js'
import { announceServer, runningServer } from './running-server.js'
import { chooseLogFormat, listeningUrl, serveLogger, type LogFormat } from './logging.js'
import { superviseWorkers } from './workers.js'
import type { CliIo } from './io.js'

export interface ServeOptions {
  readonly config?: string | undefined
  readonly port: number
  readonly host: string
  readonly logFormat?: LogFormat | undefined
  /** Processes serving the port (node:cluster); 1 serves from this process. */
  readonly workers?: number | undefined
}

/**
 * The config as served: the address it is served at is a trusted origin, so the sign-in page and
 * the docs opened at the printed URL may post from there, whatever the public URL says; and the
 * console is on at `/` unless the config sets `console`.
 */
function asServed (resolved: ResolvedConfig, host: string, port: number): ResolvedConfig {
  // A server people open in a browser has the console unless the config says otherwise.
  const config = resolved.config.console === undefined ? resolveConfig({ ...resolved.config, console: { path: '/' } }) : resolved
  if (port === 0) return config
  const origin = `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`
  if (config.trustedOrigins.includes(origin)) return config
  return resolveConfig({ ...config.config, trustedOrigins: [...(config.config.trustedOrigins ?? []), origin] })
}

export async function serve (opts: ServeOptions, io: CliIo): Promise<void> {
  const resolved = asServed(await loadResolvedConfig(opts.config), opts.host, opts.port)
  // Two servers on one embedded database: the first to stop would stop it under the other.
  const other = cluster.isPrimary && resolved.databaseUrl === undefined ? runningServer(resolved.dataDir) : undefined
  if (other !== undefined && other.pid !== process.pid) {
    throw new Error(`another tablegate (pid ${other.pid}) serves the embedded database of ${resolved.dataDir}: stop it first, or give this one another dataDir or a DATABASE_URL`)
  }
  if ((opts.workers ?? 1) > 1 && cluster.isPrimary) return await superviseWorkers(resolved, opts.workers ?? 1, io)
  if (cluster.isPrimary) return await serveHere(opts, resolved, io, undefined)
  // A worker's channel to its supervisor keeps it alive once it is done, served or failed: it is
  // closed, so the worker ends and the supervisor hears how.
  try {
    await serveHere(opts, resolved, io, cluster.worker)
  } finally {
    cluster.worker?.disconnect()
  }
}

async function serveHere (opts: ServeOptions, resolved: ResolvedConfig, io: CliIo, worker: Worker | undefined): Promise<void> {
  // In a worker the supervisor handles signals and announcing; only the first worker says hello.
  const say = worker === undefined || worker.id === 1 ? io.out : () => {}
  // Signals are heard from the start: one that comes while the app starts (the embedded database
  // among it) stops the app once it has started, so nothing it started is left running.
  let shutdown: ((signal: string) => void) | undefined
  let stopAsked: string | undefined
  const onSignal = (signal: string): void => {
    if (shutdown !== undefined) return shutdown(signal)
    if (stopAsked === undefined) stopAsked = signal
    else if (worker === undefined) exitNow(io, `tablegate: ${signal} again, exiting now`)
  }
  // A worker hears Ctrl-C twice, from the terminal and from its supervisor: the second is no hurry.
  process.on('SIGINT', () => { onSignal('SIGINT') })
  process.on('SIGTERM', () => { onSignal('SIGTERM') })
  const logger = serveLogger(resolved.config.logger, chooseLogFormat(process.stdout.isTTY, opts.logFormat))
  const app = await createServer(resolved.config, { logger })
  const closed = new Promise<void>((resolve) => {
    let closing = false
    shutdown = (signal: string): void => {
      if (closing) {
        if (worker !== undefined) return
        exitNow(io, `tablegate: ${signal} again, exiting now`)
      }
      closing = true
      // Requests in flight finish (none outlives the statement timeout and the lost-backend
      // sweep); a close that still hangs is given up, not waited on for ever.
      const limitMs = resolved.statementTimeoutMs * 2 + 5_000
      setTimeout(() => {
        exitNow(io, `tablegate: shutdown not done ${limitMs} ms after ${signal} (requests, pools or the embedded database), exiting now`)
      }, limitMs).unref()
      app.close().then(resolve, (err: unknown) => {
        io.err(`tablegate: shutdown failed: ${(err as Error).message}`)
        process.exitCode = 1
        resolve()
      })
    }
  })
  if (stopAsked !== undefined) {
    shutdown!(stopAsked)
    return await closed
  }
  try {
    await app.listen({ port: opts.port, host: opts.host })
  } catch (err) {
    // The port is taken, or the address is not this machine's: stop what started (the embedded
    // database) and say why, rather than hang with nothing served.
    await app.close()
    throw err
  }
  if (worker === undefined) void closed.then(announceServer(resolved.dataDir, resolved.publicUrl))
  const url = listeningUrl(opts.host, app.server.address() as AddressInfo)
  // With a verifier of another issuer's tokens there is no login here, and no token issued here.
  const login = app.tablegate.users === undefined ? '' : `, login ${url}${resolved.apiRoot}/auth`
  say(`tablegate is serving ${url} (API ${url}${resolved.basePath}${login})`)
  // Tokens name the public URL, which a proxy or a tunnel may rightly make another; say which it is.
  if (login !== '' && new URL(resolved.publicUrl).origin !== url) say(`tokens are issued for the public URL ${resolved.publicUrl} (publicUrl in the config, or AUTH_URL)`)
  // Only a hint: a database that cannot answer right now must not end a server that is serving.
  if (app.tablegate.users !== undefined && !(await app.tablegate.users.hasUsers().catch(() => true))) {
    say('No user yet. Create the first admin in another terminal:')
    say('  npx tablegate user create --email you@example.com --generate-password')
  }
  await closed
}

function exitNow (io: CliIo, message: string): never {
  io.err(message)
  process.exit(1)
}
