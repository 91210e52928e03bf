// initdb and the postgres server of the embedded database, as child processes (as the `postgres`
// account when tablegate runs as root). Every way they can fail ends as one EmbeddedDatabaseError
// line; the server's own log goes to a file beside the data.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { EmbeddedDatabaseError, OR_DATABASE_URL } from './embedded-error.js'
import type { PostgresAccount } from './embedded-placement.js'
import type { PostgresBinaries } from './postgres-binaries.js'

const READY_WITHIN_MS = 60_000

export interface PostgresProcess {
  stop (): Promise<void>
}

function runAs (account: PostgresAccount | undefined): { uid?: number, gid?: number } {
  return account === undefined ? {} : { uid: account.uid, gid: account.gid }
}

function spawnFailure (program: string, err: NodeJS.ErrnoException): EmbeddedDatabaseError {
  const fix = err.code === 'ENOENT' ? 'reinstall the project\'s dependencies (npm ci)' : 'install the project where its files may be executed (not on a noexec mount)'
  return new EmbeddedDatabaseError(`cannot run ${program} (${err.code ?? err.message}): ${fix}, ${OR_DATABASE_URL}`)
}

function lastMessage (text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '')
  return lines.findLast((line) => /\b(FATAL|PANIC|ERROR|error):/.test(line)) ?? lines.at(-1)
}

/** `initdb` of a new cluster in `pgdata` whose superuser has the given credentials. */
export async function initCluster (binDir: string, programs: PostgresBinaries['programs'], pgdata: string, credentials: { user: string, password: string }, account: PostgresAccount | undefined): Promise<void> {
  mkdirSync(pgdata, { recursive: true, mode: 0o700 })
  // The password travels in a file only its reader can open, next to the data and gone after.
  const passwordFile = join(dirname(pgdata), `.initdb-password-${randomBytes(6).toString('hex')}`)
  writeFileSync(passwordFile, credentials.password + '\n', { mode: 0o600 })
  if (account !== undefined) {
    chownSync(pgdata, account.uid, account.gid)
    chownSync(passwordFile, account.uid, account.gid)
  }
  const program = join(binDir, 'bin', programs.initdb)
  try {
    const { code, output } = await new Promise<{ code: number | null, output: string }>((resolve, reject) => {
      const child = spawn(program, [`--pgdata=${pgdata}`, '--auth=password', `--username=${credentials.user}`, `--pwfile=${passwordFile}`], {
        ...runAs(account),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
      child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
      child.on('error', (err) => { reject(spawnFailure(program, err)) })
      child.on('close', (exitCode) => { resolve({ code: exitCode, output }) })
    })
    if (code !== 0) {
      throw new EmbeddedDatabaseError(`initdb could not create the embedded database in ${pgdata}: ${lastMessage(output) ?? `exit code ${code}`}; ${OR_DATABASE_URL}`)
    }
  } finally {
    rmSync(passwordFile, { force: true })
  }
}

/** postmaster.pid's status line says "ready" once the server accepts connections (whatever its language). */
function isReady (pgdata: string, pid: number | undefined): boolean {
  try {
    const lines = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')
    return Number(lines[0]) === pid && lines[7]?.trim() === 'ready'
  } catch {
    return false
  }
}

function exited (child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

/** Spawns the server on `port` and resolves with it once it accepts connections; its log goes to `logFile`. */
async function spawnServer (program: string, pgdata: string, port: number, account: PostgresAccount | undefined, logFile: string): Promise<ChildProcess> {
  const log = openSync(logFile, 'a', 0o600)
  let child: ChildProcess
  try {
    child = spawn(program, ['-D', pgdata, '-p', String(port)], { ...runAs(account), stdio: ['ignore', log, log] })
  } finally {
    closeSync(log)
  }
  let failure: Error | undefined
  child.on('error', (err) => { failure = spawnFailure(program, err) })
  const deadline = Date.now() + READY_WITHIN_MS
  while (!isReady(pgdata, child.pid)) {
    if (failure !== undefined) throw failure
    if (exited(child)) {
      const reason = lastMessage(readFileSync(logFile, 'utf8')) ?? `exit code ${child.exitCode ?? child.signalCode}`
      throw new EmbeddedDatabaseError(`the embedded PostgreSQL did not start: ${reason} (its log: ${logFile}); ${OR_DATABASE_URL}`)
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new EmbeddedDatabaseError(`the embedded PostgreSQL did not accept connections within ${READY_WITHIN_MS / 1000} s (its log: ${logFile}); ${OR_DATABASE_URL}`)
    }
    await sleep(20)
  }
  return child
}

/** Waits between restarts of a server that exited on its own: 0.5 s, doubling to 15 s. */
const RESTART_FIRST_MS = 500
const RESTART_MOST_MS = 15_000

/**
 * Starts the server on `port` and resolves once it accepts connections; its log goes to `logFile`.
 * A server that exits on its own (killed, crashed, stopped by hand) is started again on the same
 * port until it runs, so the pools reconnect to it: the process that started it owns it, and no
 * one else would. `onRestart` hears each exit and each start.
 */
export async function startServer (binDir: string, programs: PostgresBinaries['programs'], pgdata: string, port: number, account: PostgresAccount | undefined, logFile: string, onRestart: (message: string) => void = () => {}): Promise<PostgresProcess> {
  const program = join(binDir, 'bin', programs.postgres)
  writeFileSync(logFile, '', { mode: 0o600 })
  let child = await spawnServer(program, pgdata, port, account, logFile)
  let stopping = false
  let restarting: Promise<void> | undefined
  const supervise = (running: ChildProcess): void => {
    running.once('exit', (code, signal) => {
      if (stopping) return
      onRestart(`the embedded PostgreSQL exited (${signal ?? `exit code ${code}`}); starting it again`)
      restarting = restart()
    })
  }
  const restart = async (): Promise<void> => {
    for (let wait = RESTART_FIRST_MS; !stopping; wait = Math.min(wait * 2, RESTART_MOST_MS)) {
      await sleep(wait)
      if (stopping) return
      try {
        child = await spawnServer(program, pgdata, port, account, logFile)
        if (stopping) {
          child.kill('SIGINT')
          return
        }
        supervise(child)
        onRestart('the embedded PostgreSQL runs again')
        return
      } catch (err) {
        onRestart(`the embedded PostgreSQL did not start again: ${(err as Error).message}; trying again in ${Math.min(wait * 2, RESTART_MOST_MS) / 1000} s`)
      }
    }
  }
  supervise(child)
  return {
    stop: async () => {
      stopping = true
      await restarting
      if (exited(child)) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      // SIGINT is PostgreSQL's fast shutdown: sessions end, the data is consistent on disk.
      child.kill('SIGINT')
      await gone
    },
  }
}
