// The change feed's settings (config `changes`, DATABASE_LISTEN_URL), resolved: durations in
// milliseconds, where the process listens, and the caps. See docs/changes.md.
import { ConfigError } from './validate.js'
import type { Config } from './schema.js'

export interface ChangeSettings {
  /** How long the log keeps a change. */
  readonly retentionMs: number
  readonly streamsPerCaller: number
  readonly streamsPerProcess: number
  readonly heartbeatMs: number
  readonly pollMs: number
  /** The direct connection the process LISTENs on; undefined: it polls alone. */
  readonly listenUrl: string | undefined
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `'24h'` → 86,400,000; the schema has checked the form. */
export function durationMs (text: string, path: string): number {
  const match = /^([1-9][0-9]*)(s|m|h|d)$/.exec(text)
  if (match === null) throw new ConfigError(`${path}: '${text}' is not a duration such as '24h', '7d' or '3s'`)
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!
  if (!Number.isSafeInteger(ms)) throw new ConfigError(`${path}: '${text}' is too long`)
  return ms
}

export function changeSettings (config: Config, databaseUrl: string | undefined, pooler: 'none' | 'transaction', listenEnv: string | undefined): ChangeSettings {
  const changes = config.changes ?? {}
  const listenUrl = changes.listenUrl ?? (listenEnv === undefined || listenEnv === '' ? undefined : listenEnv)
  return {
    retentionMs: durationMs(changes.retention ?? '24h', 'config.changes.retention'),
    streamsPerCaller: changes.streamsPerCaller ?? 5,
    streamsPerProcess: changes.streamsPerProcess ?? 2000,
    heartbeatMs: (changes.heartbeatSeconds ?? 15) * 1000,
    pollMs: changes.pollMs ?? 1000,
    // Behind a transaction pooler a LISTEN would hold nothing: the process polls unless given a direct connection.
    listenUrl: listenUrl ?? (pooler === 'transaction' ? undefined : databaseUrl),
  }
}
