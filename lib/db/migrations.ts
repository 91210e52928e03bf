// Application migrations: the `.sql` files of `config.migrations`, applied once each in name
// order, in one transaction, recorded in `tablegate_migrations`. Plugins' tables are made first,
// in the same transaction, so a migration may index them (the audit log's) on a fresh database.
// Serialised by an advisory lock so two starting processes cannot apply a file twice.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from './query.js'
import type { Pool } from './pool.js'
import { withTransaction } from './transaction.js'

/** A migration that could not be read or run, named by its file (or its directory). */
export class MigrationError extends Error {
  constructor (message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'MigrationError'
  }
}

async function migrationFiles (directory: string): Promise<string[]> {
  try {
    return (await readdir(directory)).filter((f) => f.endsWith('.sql')).sort()
  } catch (err) {
    throw new MigrationError(`config.migrations: cannot read the directory ${directory} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}

/** What to migrate: plugins' tables (idempotent, run every time) and the directory of files, if any. */
export interface Migrations {
  readonly plugins: ReadonlyArray<(db: Queryable) => Promise<void>>
  readonly directory: string | undefined
}

/** Makes on `tx` the plugins' tables, then applies the files not applied yet, in name order; returns their names. */
export async function applyPending (tx: Queryable, migrations: Migrations): Promise<string[]> {
  const files = migrations.directory === undefined ? [] : await migrationFiles(migrations.directory)
  const applied: string[] = []
  await query(tx, sql`SELECT pg_advisory_xact_lock(hashtext(${'tablegate.migrations'}))`)
  for (const migrate of migrations.plugins) await migrate(tx)
  if (migrations.directory === undefined) return applied
  await query(tx, sql`CREATE TABLE IF NOT EXISTS tablegate_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
  const done = new Set((await rows<{ name: string }>(tx, sql`SELECT name FROM tablegate_migrations`)).map((r) => r.name))
  for (const file of files) {
    if (done.has(file)) continue
    // A migration file is trusted operator input, run as written (the one place SQL text is not built).
    try {
      await tx.query(await readFile(join(migrations.directory, file), 'utf8'))
    } catch (err) {
      // Said by file, for whoever runs the server: nothing of this reaches a caller.
      throw new MigrationError(`migration ${file} failed: ${(err as Error).message} (no migration of this run was applied)`, { cause: err })
    }
    await query(tx, sql`INSERT INTO tablegate_migrations (name) VALUES (${file})`)
    applied.push(file)
  }
  return applied
}

export async function applyMigrations (pool: Pool, migrations: Migrations): Promise<string[]> {
  const applied = await withTransaction(pool, { timeoutMs: MIGRATION_TIMEOUT_MS }, async (tx) => await applyPending(tx, migrations))
  // Fresh tables and seeds have no statistics yet: plans and list estimates need them from the start.
  if (applied.length > 0) await query(pool, sql`ANALYZE`)
  return applied
}

/** Migrations may rewrite big tables: their transaction has its own statement timeout. */
export const MIGRATION_TIMEOUT_MS = 600_000
