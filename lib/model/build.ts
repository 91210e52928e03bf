// Resource definitions → frozen models. Everything that can be checked without the database is
// checked here, each error naming its config path; introspect.ts checks the rest against tables.
import { sql } from '../sql/sql.js'
import { ConfigError } from '../config/validate.js'
import type { FieldConfig, ResourceConfig } from '../config/schema.js'
import type { RowPresenter } from '../config/plugin-resources.js'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { valueSchema } from './field-types.js'
import { didYouMean } from '../text.js'
import type { FieldModel, ManagedRole, RelationModel, ResourceModel } from './types.js'
import { withRelations } from './relations.js'
import { withTenancy } from './tenancy.js'
import { TableNameError, tableNameParts, sqlNameText } from './table-name.js'

const RESERVED_FIELDS = new Set(['etag', 'permissions'])
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const NO_RELATIONS: ReadonlyMap<string, RelationModel> = new Map()
export const RESOURCE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** A field's value schema, and the check compiled from it. */
export function fieldSchema (config: FieldConfig): Pick<FieldModel, 'schema' | 'accepts'> {
  const schema = valueSchema(config)
  // Compiled once per field: a body's values are checked by generated code, not by walking the schema.
  const compiled = TypeCompiler.Compile(schema)
  return { schema, accepts: (value: unknown) => compiled.Check(value) }
}

function fieldModel (name: string, config: FieldConfig, managed: ManagedRole | undefined): FieldModel {
  const readOnly = managed !== undefined || config.readOnly === true
  return Object.freeze({
    name,
    column: config.column ?? name,
    type: config.type,
    readOnly,
    required: config.required === true,
    nullable: config.nullable ?? (managed === 'softDelete' || config.required !== true),
    hasDefault: config.default !== undefined,
    default: config.default,
    dbDefault: config.dbDefault === true,
    filterable: config.filterable ?? true,
    sortable: config.sortable ?? true,
    searchable: config.searchable ?? false,
    references: config.references,
    managed,
    notNull: false,
    columnType: undefined,
    columnLimit: undefined,
    enumValues: config.enum,
    ...fieldSchema(config),
  })
}

/** The table's text form and its SQL identifier (lib/model/table-name.ts says how `table` reads). */
function tableOf (path: string, table: string): { text: string, ident: ReturnType<typeof sql.ident> } {
  let parts: string[]
  try {
    parts = tableNameParts(table)
  } catch (err) {
    if (!(err instanceof TableNameError)) throw err
    // Written as the names themselves ('Odd Schema.t2'): the same names in quotes is what was meant.
    const literal = table.split('.')
    const meant = !table.includes('"') && literal.length <= 2 && literal.every((p) => p !== '') ? `: '${sqlNameText(literal)}'` : ''
    throw new ConfigError(`${path}.table: '${table}' is not a table name: ${err.message}${meant}`)
  }
  return { text: sqlNameText(parts), ident: sql.ident(...parts) }
}

/** 63 bytes of a PostgreSQL name less the 18 of `tablegate_changes_`. */
const MAX_TRIGGER_RESOURCE_BYTES = 45

export function buildModel (name: string, config: ResourceConfig, present?: RowPresenter): ResourceModel {
  const path = `config.resources.${name}`
  if (!RESOURCE_NAME.test(name)) throw new ConfigError(`${path}: a resource name must start with a letter or '_' and hold letters, digits, '_' or '-'`)
  const managedByColumn = new Map<string, ManagedRole>()
  if (config.softDelete !== undefined) managedByColumn.set(config.softDelete, 'softDelete')
  if (config.version !== undefined) managedByColumn.set(config.version, 'version')
  const tenantColumn = typeof config.tenant === 'string' ? config.tenant : undefined
  if (tenantColumn !== undefined) managedByColumn.set(tenantColumn, 'tenant')

  const fields = new Map<string, FieldModel>()
  for (const [fieldName, fieldConfig] of Object.entries(config.fields)) {
    if (RESERVED_FIELDS.has(fieldName)) throw new ConfigError(`${path}.fields.${fieldName}: a field cannot be named '${fieldName}' (it is part of every record)`)
    if (fieldName.startsWith('__')) throw new ConfigError(`${path}.fields.${fieldName}: names starting with '__' are kept for tablegate's own columns`)
    if (!NAME.test(fieldName)) throw new ConfigError(`${path}.fields.${fieldName}: a field name must start with a letter or '_' and hold letters, digits or '_'`)
    fields.set(fieldName, fieldModel(fieldName, fieldConfig, managedByColumn.get(fieldConfig.column ?? fieldName)))
  }
  const columns = new Set([...fields.values()].map((f) => f.column))
  // Managed columns left out of `fields`: version and soft-delete appear read-only; the tenant column
  // is a field only staff across tenants see (lib/access/resolve.ts), typed from its column.
  if (config.version !== undefined && !columns.has(config.version) && !RESERVED_FIELDS.has(config.version)) {
    fields.set(config.version, fieldModel(config.version, { type: 'string' }, 'version'))
  }
  if (config.softDelete !== undefined && !columns.has(config.softDelete) && !RESERVED_FIELDS.has(config.softDelete)) {
    fields.set(config.softDelete, fieldModel(config.softDelete, { type: 'timestamp', nullable: true }, 'softDelete'))
  }
  const staffTenant = tenantColumn !== undefined && !columns.has(tenantColumn) && !RESERVED_FIELDS.has(tenantColumn)
    ? fieldModel(tenantColumn, { type: 'string', required: true, nullable: false }, 'tenant')
    : undefined
  if (staffTenant !== undefined) fields.set(staffTenant.name, staffTenant)

  const keyNames = config.key === undefined ? ['id'] : typeof config.key === 'string' ? [config.key] : config.key
  const key = keyNames.map((k) => {
    const field = fields.get(k)
    if (field === undefined) throw new ConfigError(`${path}.key: '${k}' is not a field of the resource`)
    if (field.type === 'json') throw new ConfigError(`${path}.key: '${k}' is a json field and cannot be a key`)
    return field
  })
  if (config.owner !== undefined && !fields.has(config.owner)) throw new ConfigError(`${path}.owner: '${config.owner}' is not a field of the resource`)
  const table = tableOf(path, config.table ?? name)
  // The table's capture trigger is named tablegate_changes_<resource> (lib/changes/log.ts), within PostgreSQL's 63 bytes.
  if (config.changes?.capture === 'trigger' && Buffer.byteLength(name) > MAX_TRIGGER_RESOURCE_BYTES) {
    throw new ConfigError(`${path}.changes: capture 'trigger' needs a resource name of at most ${MAX_TRIGGER_RESOURCE_BYTES} bytes: the table's trigger, tablegate_changes_${name}, is named after it`)
  }
  return Object.freeze({
    name,
    table: table.ident,
    tableText: table.text,
    fields,
    fieldList: Object.freeze([...fields.values()]),
    key,
    softDelete: config.softDelete,
    tenant: tenantColumn,
    tenantField: staffTenant,
    // A tenancy through relations is settled once every relation is known (./tenancy.ts).
    tenancy: tenantColumn === undefined ? undefined : { kind: 'column' as const, column: tenantColumn },
    owner: config.owner,
    // The version column's kind is settled by introspection from its PostgreSQL type.
    version: config.version === undefined ? undefined : { column: config.version, kind: 'integer' as const },
    versionField: [...fields.values()].find((f) => f.managed === 'version'),
    // Settled by introspection; until then, the cautious answer.
    rewritesUpdates: true,
    uniqueColumns: new Set<string>(),
    leadingColumns: new Set<string>(),
    validate: config.validate,
    access: config.access,
    present,
    relations: NO_RELATIONS,
    changes: config.changes === undefined ? undefined : config.changes.capture ?? 'pipeline',
  })
}

/** A reference names a resource whose one key field has the referring field's type. */
function checkReferences (model: ResourceModel, models: ReadonlyMap<string, ResourceModel>): void {
  for (const field of model.fields.values()) {
    if (field.references === undefined) continue
    const path = `config.resources.${model.name}.fields.${field.name}.references`
    const target = models.get(field.references)
    if (target === undefined) throw new ConfigError(`${path}: resource '${field.references}' does not exist${didYouMean(field.references, models.keys())}`)
    const [key, ...more] = target.key
    if (key === undefined || more.length > 0) throw new ConfigError(`${path}: ${target.name} has a key of ${target.key.length} fields; a reference names a record by a key of one field`)
    if (key.type !== field.type) throw new ConfigError(`${path}: ${field.name} is ${field.type} but the key of ${target.name} (${key.name}) is ${key.type}`)
  }
}

export function buildModels (resources: Readonly<Record<string, ResourceConfig>>, presenters: ReadonlyMap<string, RowPresenter> = new Map()): Map<string, ResourceModel> {
  const models = new Map(Object.entries(resources).map(([name, config]) => [name, buildModel(name, config, presenters.get(name))]))
  for (const model of models.values()) checkReferences(model, models)
  return withTenancy(withRelations(models, resources), resources)
}
