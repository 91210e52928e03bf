// The built-in audit log, written exactly as a third-party plugin would be: it depends on
// `tablegate` and uses only `app.tablegate` (its database pool and addWriteHook). Each write adds
// a row in the same transaction, so the audit row commits or rolls back with the write.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sql } from '../../lib/sql/sql.js'
import { query } from '../../lib/db/query.js'
import type { WriteEvent } from '../../hooks/types.js'
import type { Queryable } from '../../lib/db/query.js'

export interface AuditLogOptions {
  /** Table of the audit rows; created when missing. Default `tablegate_audit_log`. */
  readonly table?: string
}

async function auditLog (app: FastifyInstance, options: AuditLogOptions): Promise<void> {
  const table = sql.ident(...(options.table ?? 'tablegate_audit_log').split('.'))
  await query(app.tablegate.db.app, sql`CREATE TABLE IF NOT EXISTS ${table} (
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
  app.tablegate.addWriteHook(async function auditLogRow (event: WriteEvent, tx: Queryable) {
    await query(tx, sql`INSERT INTO ${table} (resource, operation, record_key, user_id, tenant, before, after)
      VALUES (${event.resource}, ${event.operation}, ${event.key}, ${event.ctx.user?.id ?? null}, ${event.ctx.tenant ?? null},
              ${event.before === undefined ? null : JSON.stringify(event.before)}, ${event.after === undefined ? null : JSON.stringify(event.after)})`)
  })
}

export default fp(auditLog, { name: 'tablegate-audit-log', fastify: '5.x', dependencies: ['tablegate'] })
