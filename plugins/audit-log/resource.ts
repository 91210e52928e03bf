// The audit log's table, and the log as a read-only resource. Its `before` and `after` hold
// whole stored records, so each caller sees in them only the fields they may read of the audited
// resource (none of a resource they cannot read), and may not filter, sort or search by them:
// a filter on a hidden field would answer by the value it hides.
import { sql, query, type PluginResources, type Queryable, type ResourceConfig, type Rule, type RowPresenter } from '../../lib/public.js'

export interface AuditLogOptions {
  /** Table of the audit rows; created by `tablegate migrate` and on start with `migrateOnStart`. Default `tablegate_audit_log`. */
  readonly table?: string
  /** Only writes of these resources (default: all). */
  readonly resources?: readonly string[]
  /** Expose the log as a read-only resource of this name, e.g. `audit_log`. */
  readonly resource?: string
  /** Who may read that resource: a read rule (default: the `admin` role). */
  readonly read?: Rule
}

const DEFAULT_TABLE = 'tablegate_audit_log'

export interface AuditTable {
  readonly table: ReturnType<typeof sql.ident>
  /** Its (resource, record_key) index, named as `CREATE INDEX ON` the table would name it. */
  readonly byRecord: ReturnType<typeof sql.ident>
}

export function tableOf (options: AuditLogOptions): AuditTable {
  const parts = (options.table ?? DEFAULT_TABLE).split('.')
  return { table: sql.ident(...parts), byRecord: sql.ident(`${parts.at(-1)!}_resource_record_key_idx`) }
}

/**
 * The table, and the index that serves the history of a record (`resource = … AND record_key = …`),
 * which the scan guard would otherwise refuse once the log passes `seqScanRows`. An index an
 * administrator made with `CREATE INDEX ON tablegate_audit_log (resource, record_key)` has this
 * name, so it is kept, not made twice.
 */
export async function createAuditTable (db: Queryable, { table, byRecord }: AuditTable): Promise<void> {
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
  await query(db, sql`CREATE INDEX IF NOT EXISTS ${byRecord} ON ${table} (resource, record_key)`)
}

const RECORD = { type: 'json', readOnly: true, nullable: true, filterable: false, sortable: false, searchable: false } as const

function resourceConfig (options: AuditLogOptions): ResourceConfig {
  return {
    table: options.table ?? DEFAULT_TABLE,
    key: 'id',
    fields: {
      id: { type: 'bigint', readOnly: true },
      at: { type: 'timestamp', readOnly: true },
      resource: { type: 'string', readOnly: true },
      operation: { type: 'string', readOnly: true },
      record_key: { type: 'string', readOnly: true },
      user_id: { type: 'string', readOnly: true, nullable: true },
      tenant: { type: 'string', readOnly: true, nullable: true },
      before: RECORD,
      after: RECORD,
    },
    // Rules given for every operation: no capability bundle can grant a write to the log.
    access: { read: options.read ?? ['admin'], create: false, update: false, delete: false, undelete: false },
  }
}

/** The part of a stored record the caller may read: null when they may read nothing of its resource. */
function readablePart (record: unknown, fields: ReadonlySet<string> | undefined): unknown {
  if (fields === undefined || record === null || typeof record !== 'object') return null
  const part: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(record)) if (fields.has(name)) part[name] = value
  return part
}

const presentAuditRow: RowPresenter = (readableFields) => {
  const byResource = new Map<string, ReadonlySet<string> | undefined>()
  const fieldsOf = (resource: unknown): ReadonlySet<string> | undefined => {
    if (typeof resource !== 'string') return undefined
    if (!byResource.has(resource)) byResource.set(resource, readableFields(resource))
    return byResource.get(resource)
  }
  return (row) => {
    if (!('before' in row) && !('after' in row)) return row
    const fields = fieldsOf(row.resource)
    return { ...row, before: readablePart(row.before, fields), after: readablePart(row.after, fields) }
  }
}

/** What the plugin adds to the app: its table's migration, and the resource when `resource` is set. */
export function auditResources (raw: unknown): PluginResources {
  const options = (raw ?? {}) as AuditLogOptions
  const audit = tableOf(options)
  return {
    resources: options.resource === undefined ? {} : { [options.resource]: { config: resourceConfig(options), present: presentAuditRow } },
    migrate: async (db) => { await createAuditTable(db, audit) },
  }
}
