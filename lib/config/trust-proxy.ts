// Which peers may say who the client is (`x-forwarded-for`), with Fastify's `trustProxy`
// semantics: `true` (any), `false` (none: the socket address), or addresses, CIDR ranges and
// proxy-addr's named ranges. The default believes loopback and private-network peers only, so a
// client that reaches the server directly cannot choose its own address. A hop count is refused:
// it cannot tell a proxy from a client that connects directly, and Fastify 5 trusts no peer for one.
import { isIP } from 'node:net'
import { ConfigError } from './validate.js'

export type TrustProxy = boolean | readonly string[]

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal']
export const DEFAULT_TRUST_PROXY: TrustProxy = Object.freeze(['loopback', 'uniquelocal'])

function validRangeLength (address: string, length: string): boolean {
  if (/^\d+$/.test(length)) return Number(length) <= (isIP(address) === 6 ? 128 : 32)
  return isIP(address) === 4 && isIP(length) === 4
}

function checkEntry (entry: string, key: string): string {
  if (NAMED_RANGES.includes(entry)) return entry
  const [address = '', length, ...rest] = entry.split('/')
  const valid = isIP(address) !== 0 && rest.length === 0 && (length === undefined || validRangeLength(address, length))
  if (!valid) throw new ConfigError(`${key}: '${entry}' is not an IP address, a CIDR range or one of ${NAMED_RANGES.join(', ')}`)
  return entry
}

function entries (list: string | readonly string[], key: string): string[] {
  const parts = typeof list === 'string' ? list.split(',') : list
  return parts.map((p) => p.trim()).filter((p) => p !== '').map((p) => checkEntry(p, key))
}

function hopCount (key: string): never {
  throw new ConfigError(`${key}: a hop count cannot tell a proxy from a client that connects directly (Fastify trusts no peer for one): give the proxies' addresses or CIDR ranges`)
}

/** The setting from the config, else `TRUST_PROXY` (`true`, `false` or a comma separated list), else the default. */
export function resolveTrustProxy (setting: boolean | number | string | readonly string[] | undefined, env: string | undefined): TrustProxy {
  if (typeof setting === 'number') hopCount('config.trustProxy')
  if (setting !== undefined) return typeof setting === 'boolean' ? setting : entries(setting, 'config.trustProxy')
  const text = env?.trim() ?? ''
  if (text === '') return DEFAULT_TRUST_PROXY
  if (text === 'true' || text === 'false') return text === 'true'
  if (/^\d+$/.test(text)) hopCount('TRUST_PROXY')
  return entries(text, 'TRUST_PROXY')
}
