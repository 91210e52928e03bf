// The built-in audit log, written exactly as a third-party plugin would be: it depends on
// `tablegate` and uses only `app.tablegate` (its database and addWriteHook) and the exported
// API, imported from lib/public.ts (what 'tablegate' exports but the plugins, this one among them,
// so no import cycle). Each write adds a row with the stored records before and after it, in the
// same transaction, so the audit row commits or rolls back with the write. User-store changes
// (resource `auth.users`) are written too, with `host` as the actor of changes made on the host
// (CLI, library); they commit in the auth store's database, so the table lives there as well.
// With `resource`, the log is also a read-only resource (resource.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sql, query, withResources, type WriteEvent, type Queryable } from '../../lib/public.js'
import { auditResources, createAuditTable, tableOf, type AuditLogOptions } from './resource.js'

export type { AuditLogOptions }

/** `user_id` of changes no caller made: user-store changes from the CLI or a library call. */
export const HOST_ACTOR = 'host'

async function auditLog (app: FastifyInstance, options: AuditLogOptions): Promise<void> {
  // The resource is read from config.plugins when the config is resolved, before any plugin runs.
  if (options.resource !== undefined && app.tablegate.models.get(options.resource)?.present === undefined) {
    throw new Error(`auditLog: the resource '${options.resource}' exists only when the plugin is given in config.plugins ([auditLog, { resource: '${options.resource}' }]), not registered on its own`)
  }
  const audit = tableOf(options)
  const { table } = audit
  // The application database's table is made with the other migrations; the auth store's here,
  // like every other migration only where the config lets startup change the schema.
  const authDb = app.tablegate.authDb
  if (app.tablegate.config.migrateOnStart && authDb !== undefined) await createAuditTable(authDb, audit)
  app.tablegate.addWriteHook(async function auditLogRow (event: WriteEvent, tx: Queryable) {
    await query(tx, sql`INSERT INTO ${table} (resource, operation, record_key, user_id, tenant, before, after)
      VALUES (${event.resource}, ${event.operation}, ${event.key}, ${event.ctx.user?.id ?? HOST_ACTOR}, ${event.tenant ?? event.ctx.tenant ?? null},
              ${event.before === undefined ? null : JSON.stringify(event.before)}, ${event.after === undefined ? null : JSON.stringify(event.after)})`)
  }, options.resources === undefined ? {} : { resources: options.resources })
}

export default withResources(fp(auditLog, { name: 'tablegate-audit-log', fastify: '5.x', dependencies: ['tablegate'] }), auditResources)
