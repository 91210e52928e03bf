// Where the embedded PostgreSQL's binaries and data live. PostgreSQL refuses to run as root, so a
// root process runs it as the `postgres` user, which must be able to reach both: a project under
// /root or in a `mktemp -d` directory (mode 0700) is out of its reach. Then the binaries run from a
// copy in /var/cache/tablegate (one per version) and the data lives in /var/lib/tablegate, with
// `<dataDir>/pgdata` a link to it. Not as root, PostgreSQL runs as the caller, from where it is.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { dirname, join, parse, resolve, sep } from 'node:path'
import { EmbeddedDatabaseError, OR_DATABASE_URL } from './embedded-error.js'
import type { PostgresBinaries } from './postgres-binaries.js'

export interface PostgresAccount { readonly uid: number, readonly gid: number }

export interface Placement {
  /** Root of the binary copies (one directory per package version). */
  readonly cacheDir: string
  /** Root of the data directories placed for unreachable projects. */
  readonly dataRoot: string
}

export const SYSTEM_PLACEMENT: Placement = { cacheDir: '/var/cache/tablegate', dataRoot: '/var/lib/tablegate' }

const ACCOUNT = 'postgres'

function idOf (flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, ACCOUNT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
}

/** As root, the account PostgreSQL runs as, created when missing; undefined when not root. */
export function postgresAccount (): PostgresAccount | undefined {
  if (process.getuid?.() !== 0) return undefined
  try {
    return { uid: idOf('-u'), gid: idOf('-g') }
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', ACCOUNT], { stdio: 'ignore' })
      return { uid: idOf('-u'), gid: idOf('-g') }
    } catch {
      throw new EmbeddedDatabaseError(`PostgreSQL refuses to run as root and there is no '${ACCOUNT}' user to run it as, nor could one be created: create one (useradd --system ${ACCOUNT}), run tablegate as another user, ${OR_DATABASE_URL}`)
    }
  }
}

function permits (path: string, account: PostgresAccount): boolean {
  const stat = statSync(path)
  const bit = stat.uid === account.uid ? 0o100 : stat.gid === account.gid ? 0o010 : 0o001
  return (stat.mode & bit) !== 0
}

/** The first directory on the way to `path` (or `path` itself) the account may not enter or execute. */
export function unreachablePart (path: string, account: PostgresAccount): string | undefined {
  const absolute = resolve(path)
  const { root } = parse(absolute)
  let current = root
  for (const part of [root, ...absolute.slice(root.length).split(sep).filter((p) => p !== '')]) {
    current = part === root ? root : join(current, part)
    if (!permits(current, account)) return current
  }
  return undefined
}

function assertRootOwned (dir: string): void {
  const stat = statSync(dir)
  if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedDatabaseError(`${dir} is not owned by root or is writable by others, so the embedded PostgreSQL will not run from it: remove it (it is recreated), ${OR_DATABASE_URL}`)
  }
}

function makeRootDir (dir: string, mode: number): void {
  mkdirSync(dir, { recursive: true, mode })
  assertRootOwned(dir)
}

/** The directory of `bin/postgres` the account can execute: the installed one, or a copy kept per version. */
export function placeBinaries (binaries: PostgresBinaries, account: PostgresAccount | undefined, placement: Placement = SYSTEM_PLACEMENT): string {
  const postgres = join('bin', binaries.programs.postgres)
  if (account === undefined || unreachablePart(join(binaries.nativeDir, postgres), account) === undefined) return binaries.nativeDir
  const copy = join(placement.cacheDir, `postgres-${binaries.version}-${process.platform}-${process.arch}`)
  try {
    makeRootDir(placement.cacheDir, 0o755)
    if (!existsSync(copy)) {
      // Copied beside and renamed, so a second process never sees half a copy.
      const partial = `${copy}.${process.pid}.partial`
      cpSync(binaries.nativeDir, partial, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.endsWith('.a') })
      try {
        renameSync(partial, copy)
      } catch (err) {
        rmSync(partial, { recursive: true, force: true })
        if (!existsSync(copy)) throw err
      }
    }
  } catch (err) {
    if (err instanceof EmbeddedDatabaseError) throw err
    throw new EmbeddedDatabaseError(`the ${ACCOUNT} user cannot execute PostgreSQL in ${binaries.nativeDir}, and copying it to ${copy} failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): make ${placement.cacheDir} writable for root, install the project where ${ACCOUNT} can read it, ${OR_DATABASE_URL}`)
  }
  assertRootOwned(copy)
  const blocked = unreachablePart(join(copy, postgres), account)
  if (blocked !== undefined) throw new EmbeddedDatabaseError(`the ${ACCOUNT} user cannot enter ${blocked}, so it cannot run PostgreSQL from ${copy}: allow it (chmod o+x ${blocked}), ${OR_DATABASE_URL}`)
  return copy
}

/**
 * The data directory to hand PostgreSQL: `<dataDir>/pgdata` when the account can reach it, else
 * the place `<dataDir>/pgdata` links to under the data root, keyed by the data directory's path.
 */
export function placeData (dataDir: string, account: PostgresAccount | undefined, placement: Placement = SYSTEM_PLACEMENT): string {
  const link = join(dataDir, 'pgdata')
  const existing = lstatSync(link, { throwIfNoEntry: false })
  if (existing?.isSymbolicLink() === true) return resolve(dataDir, readlinkSync(link))
  if (account === undefined) return link
  const blocked = unreachablePart(dataDir, account)
  if (blocked === undefined) return link
  if (existing !== undefined) {
    if (existsSync(join(link, 'PG_VERSION'))) {
      throw new EmbeddedDatabaseError(`the embedded database in ${link} is out of reach of the ${ACCOUNT} user PostgreSQL runs as (it cannot enter ${blocked}): allow it (chmod o+x ${blocked}), run tablegate as the user who created it, ${OR_DATABASE_URL}`)
    }
    rmSync(link, { recursive: true, force: true })
  }
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16)
  const placed = join(placement.dataRoot, 'data', key, 'pgdata')
  makeRootDir(placement.dataRoot, 0o755)
  mkdirSync(dirname(placed), { recursive: true, mode: 0o711 })
  // Nothing links here any more (the data directory was deleted and made again): a fresh cluster
  // gets fresh credentials, which the old one would refuse.
  rmSync(placed, { recursive: true, force: true })
  const stillBlocked = unreachablePart(dirname(placed), account)
  if (stillBlocked !== undefined) throw new EmbeddedDatabaseError(`the ${ACCOUNT} user can reach neither ${dataDir} nor ${placement.dataRoot} (it cannot enter ${stillBlocked}): allow it (chmod o+x ${stillBlocked}), ${OR_DATABASE_URL}`)
  symlinkSync(placed, link)
  return placed
}
