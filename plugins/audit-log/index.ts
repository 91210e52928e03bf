// The built-in audit log, written exactly as a third-party plugin would be: it depends on
// `tablegate` and uses only `app.tablegate` (its database and addWriteHook) and the exported
// types. Each write adds a row with the stored records before and after it, in the same
// transaction, so the audit row commits or rolls back with the write. User-store changes
// (resource `auth.users`) are written too, with `host` as the actor of changes made on the host
// (CLI, library); they commit in the auth store's database, so the table lives there as well.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sql, query, type Queryable, type WriteEvent } from 'tablegate'

export interface AuditLogOptions {
  /** Table of the audit rows; created when missing if `migrateOnStart` (the default). Default `tablegate_audit_log`. */
  readonly table?: string
  /** Only writes of these resources (default: all). */
  readonly resources?: readonly string[]
}

/** `user_id` of changes no caller made: user-store changes from the CLI or a library call. */
export const HOST_ACTOR = 'host'

async function createAuditTable (db: Queryable, table: ReturnType<typeof sql.ident>): Promise<void> {
  await query(db, sql`CREATE TABLE IF NOT EXISTS ${table} (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    resource text NOT NULL,
    operation text NOT NULL,
    record_key text NOT NULL,
    user_id text,
    tenant text,
    before jsonb,
    after jsonb
  )`)
}

async function auditLog (app: FastifyInstance, options: AuditLogOptions): Promise<void> {
  const table = sql.ident(...(options.table ?? 'tablegate_audit_log').split('.'))
  // Like every other migration, only where the config lets startup change the schema.
  if (app.tablegate.config.migrateOnStart) {
    for (const db of new Set([app.tablegate.db, app.tablegate.users?.pool ?? app.tablegate.db])) await createAuditTable(db, table)
  }
  app.tablegate.addWriteHook(async function auditLogRow (event: WriteEvent, tx: Queryable) {
    await query(tx, sql`INSERT INTO ${table} (resource, operation, record_key, user_id, tenant, before, after)
      VALUES (${event.resource}, ${event.operation}, ${event.key}, ${event.ctx.user?.id ?? HOST_ACTOR}, ${event.ctx.tenant ?? null},
              ${event.before === undefined ? null : JSON.stringify(event.before)}, ${event.after === undefined ? null : JSON.stringify(event.after)})`)
  }, options.resources === undefined ? {} : { resources: options.resources })
}

export default fp(auditLog, { name: 'tablegate-audit-log', fastify: '5.x', dependencies: ['tablegate'] })
