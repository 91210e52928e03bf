// `tablegate serve`: the API on a port until SIGINT/SIGTERM, then a graceful close: no new
// requests, those in flight finish (bounded), then the pools and the embedded database close.
import type { AddressInfo } from 'node:net'
import { createServer } from '../server.js'
import { loadResolvedConfig } from './host.js'
import { announceServer } from './running-server.js'
import { chooseLogFormat, listeningUrl, serveLogger, type LogFormat } from './logging.js'
import type { CliIo } from './io.js'

export interface ServeOptions {
  readonly config?: string | undefined
  readonly port: number
  readonly host: string
  readonly logFormat?: LogFormat | undefined
}

export async function serve (opts: ServeOptions, io: CliIo): Promise<void> {
  const resolved = await loadResolvedConfig(opts.config)
  const logger = serveLogger(resolved.config.logger, chooseLogFormat(process.stdout.isTTY, opts.logFormat))
  const app = await createServer(resolved.config, { logger })
  const closed = new Promise<void>((resolve) => {
    let closing = false
    const shutdown = (signal: string): void => {
      if (closing) {
        io.err(`tablegate: ${signal} again, exiting now`)
        process.exit(1)
      }
      closing = true
      // Requests in flight finish (none outlives the statement timeout and the lost-backend
      // sweep); a close that still hangs is given up, not waited on for ever.
      const limitMs = resolved.statementTimeoutMs * 2 + 5_000
      setTimeout(() => {
        io.err(`tablegate: requests still running ${limitMs} ms after ${signal}, exiting now`)
        process.exit(1)
      }, limitMs).unref()
      app.close().then(resolve, (err: unknown) => {
        io.err(`tablegate: shutdown failed: ${(err as Error).message}`)
        process.exitCode = 1
        resolve()
      })
    }
    process.once('SIGINT', () => { shutdown('SIGINT') })
    process.once('SIGTERM', () => { shutdown('SIGTERM') })
  })
  await app.listen({ port: opts.port, host: opts.host })
  const withdraw = announceServer(resolved.dataDir, resolved.publicUrl)
  void closed.then(withdraw)
  const url = listeningUrl(opts.host, app.server.address() as AddressInfo)
  io.out(`tablegate is serving ${url} (API ${url}${resolved.basePath}, login ${url}${resolved.apiRoot}/auth)`)
  // Tokens name the public URL, which a proxy or a tunnel may rightly make another; say which it is.
  if (new URL(resolved.publicUrl).origin !== url) io.out(`tokens are issued for the public URL ${resolved.publicUrl} (publicUrl in the config, or AUTH_URL)`)
  if (app.tablegate.users !== undefined && !(await app.tablegate.users.hasUsers())) {
    io.out('No user yet. Create the first admin in another terminal:')
    io.out('  npx tablegate user create --email you@example.com --generate-password')
  }
  await closed
}
