// Which peers may say who the client is (`x-forwarded-for`), with Fastify's `trustProxy`
// semantics: `true` (any), `false` (none: the socket address), a hop count, or addresses, CIDR
// ranges and proxy-addr's named ranges. The default believes loopback and private-network peers
// only, so a client that reaches the server directly cannot choose its own address.
import { isIP } from 'node:net'
import { ConfigError } from './validate.js'

export type TrustProxy = boolean | number | readonly string[]

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

/** The setting from the config, else `TRUST_PROXY` (`true`, `false`, a hop count or a comma separated list), else the default. */
export function resolveTrustProxy (setting: boolean | number | string | readonly string[] | undefined, env: string | undefined): TrustProxy {
  if (setting !== undefined) return typeof setting === 'boolean' || typeof setting === 'number' ? setting : entries(setting, 'config.trustProxy')
  const text = env?.trim() ?? ''
  if (text === '') return DEFAULT_TRUST_PROXY
  if (text === 'true' || text === 'false') return text === 'true'
  if (/^\d+$/.test(text)) return Number(text)
  return entries(text, 'TRUST_PROXY')
}
