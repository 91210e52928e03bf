// `tablegate serve` leaves its public URL in the data directory while it runs, so the CLI commands
// run beside it (`token` above all) sign for the URL the server checks, even from a shell without
// the server's AUTH_URL. The config and the environment still win when they give one.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAlive } from '../db/embedded.js'

const FILE = 'server.json'

interface RunningServer { readonly pid: number, readonly publicUrl: string }

/** Records this process as the server of `dataDir`; returns how to take the record back. */
export function announceServer (dataDir: string, publicUrl: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o711 })
  const file = join(dataDir, FILE)
  writeFileSync(file, JSON.stringify({ pid: process.pid, publicUrl } satisfies RunningServer), { mode: 0o644 })
  return () => { rmSync(file, { force: true }) }
}

/** The server running on `dataDir`, if one is. */
export function runningServer (dataDir: string): RunningServer | undefined {
  const file = join(dataDir, FILE)
  if (!existsSync(file)) return undefined
  try {
    const server = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunningServer>
    return typeof server.pid === 'number' && typeof server.publicUrl === 'string' && isAlive(server.pid) ? { pid: server.pid, publicUrl: server.publicUrl } : undefined
  } catch {
    return undefined
  }
}

/** The public URL of a server running on `dataDir`, if one is. */
export function runningServerUrl (dataDir: string): string | undefined {
  return runningServer(dataDir)?.publicUrl
}
