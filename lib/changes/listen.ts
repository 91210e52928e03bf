// The LISTEN connection that wakes a process's change hub: one direct connection (a LISTEN
// through a transaction pooler would hear nothing), opened when the first follower comes, opened
// again a second after it is lost. While it is down the hub's poll still reads the log.
import pg from 'pg'
import { CHANNEL } from './log.js'
import { sql } from '../sql/sql.js'
import { query } from '../db/query.js'

const RECONNECT_MS = 1000

export interface Listener {
  close (): Promise<void>
}

export function listenForChanges (url: string, onChange: () => void, onError: (error: unknown) => void): Listener {
  let client: pg.Client | undefined
  let closed = false
  let timer: NodeJS.Timeout | undefined

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, application_name: 'tablegate-changes' })
    next.on('notification', () => { onChange() })
    const lost = (err?: unknown): void => {
      if (client !== next) return
      client = undefined
      if (err !== undefined) onError(err)
      void next.end().catch(() => {})
      if (!closed) retry()
    }
    next.on('error', lost)
    next.on('end', () => { lost() })
    client = next
    try {
      await next.connect()
      await query(next, sql`LISTEN ${sql.ident(CHANNEL)}`)
      if (closed) await next.end()
      // Changes made while no one listened are in the log: the hub reads from its tail.
      else onChange()
    } catch (err) {
      lost(err)
    }
  }
  const retry = (): void => {
    timer = setTimeout(() => { void connect() }, RECONNECT_MS)
    timer.unref()
  }
  void connect()
  return {
    close: async () => {
      closed = true
      clearTimeout(timer)
      const open = client
      client = undefined
      await open?.end().catch(() => {})
    },
  }
}
