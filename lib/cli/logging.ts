// How `tablegate serve` logs: readable lines for a person at a terminal, one JSON object a line
// for everything else (a log shipper, a file, systemd's journal), and the address it listens on.
import type { AddressInfo } from 'node:net'
import { isIP } from 'node:net'
import type { ServerOptions } from '../server.js'
import pretty from 'pino-pretty'

export const LOG_FORMATS = ['pretty', 'json'] as const
export type LogFormat = typeof LOG_FORMATS[number]

/** `--log-format` when given; else pretty when stdout is a terminal, JSON when it is not. */
export function chooseLogFormat (stdoutIsTty: boolean, given?: LogFormat): LogFormat {
  return given ?? (stdoutIsTty ? 'pretty' : 'json')
}

/**
 * Fastify's logger option for `serve`: the config's `logger` (`false` silences it; options are
 * kept, `info` unless they set a level), written pretty or as pino's JSON. Pretty runs in this
 * thread, not in a transport's worker, and writes stdout synchronously, so the lines just before
 * an exit are not lost. `destination` is for tests.
 */
export function serveLogger (configured: unknown, format: LogFormat, destination: NodeJS.WritableStream | 1 = 1): ServerOptions['logger'] {
  if (configured === false) return false
  const options = { level: 'info', ...(typeof configured === 'object' && configured !== null ? configured : {}) }
  if (format === 'json' || 'stream' in options || 'transport' in options) return options
  const stream = pretty({
    destination,
    colorize: destination === 1 && pretty.isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
  })
  return { ...options, stream }
}

/**
 * The URL of the socket the server listens on: the host name it was given (`localhost` reads
 * better than `[::1]`), or the address itself for an IP literal or a wildcard; always the
 * port actually bound (`--port 0` picks one).
 */
export function listeningUrl (host: string, address: AddressInfo): string {
  const name = isIP(host) === 0 ? host : address.address
  return `http://${isIP(name) === 6 ? `[${name}]` : name}:${address.port}`
}
