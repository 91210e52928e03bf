// The catalog → what the config will say: which tables become resources (and why the others do
// not), their keys, fields, references and relations, and the suggestions left as comments.
// Everything is sorted here, so the rendering is a plain walk and a rerun writes the same bytes.
import type { Catalog, CatalogColumn, CatalogConstraint, CatalogRelation } from './catalog.js'
import { readCheck, type CheckFact } from './check.js'
import { applyFacts, columnField, orderedOptions, type FieldDraft } from './fields.js'
import { RESOURCE_NAME } from '../model/build.js'
import { sqlNameText } from '../model/table-name.js'
import { AUTH_STORE_TABLES, AUTH_STORE_TABLE_WHY } from '../auth/store/migrate.js'

export interface InitOptions {
  /** The schema read (default `public`). */
  readonly schema?: string
  /** Only these tables (and views); default all. */
  readonly tables?: readonly string[]
  /** Serve views (and materialized views, foreign tables) too, read-only. */
  readonly views?: boolean
}

/** `unindexed`: the CREATE INDEX that would lead the link, as SQL (the table schema-qualified outside public). */
export type RelationDraft = { readonly field: string } | { readonly resource: string, readonly by: string, readonly unindexed?: { readonly table: string, readonly index: string } }

export interface ResourceDraft {
  readonly name: string
  readonly table: string
  /** The table's own name, for messages. */
  readonly tableName: string
  readonly view: boolean
  readonly key: readonly string[]
  readonly fields: FieldDraft[]
  /** Columns left out, each with why, in column order. */
  readonly leftOut: Array<{ readonly column: string, readonly why: string }>
  readonly relations: Map<string, RelationDraft>
  /** Commented suggestions: `softDelete: 'deleted_at'` and the reason. */
  readonly suggestions: Array<{ readonly option: string, readonly value: string, readonly why: string }>
  /** Resource-level notes: constraints not turned into options, foreign keys not turned into references. */
  readonly notes: string[]
  /** The columns that lead an index of the table. */
  readonly indexed: ReadonlySet<string>
}

export interface InitPlan {
  readonly schema: string
  readonly resources: readonly ResourceDraft[]
  readonly leftOut: ReadonlyArray<{ readonly table: string, readonly why: string }>
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const RESERVED = new Set(['etag', 'permissions'])

/** A field name for a column: the column's own where the config allows it. */
function fieldName (column: string, taken: ReadonlySet<string>): string {
  let name = column.replace(/[^A-Za-z0-9_]/g, '_')
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`
  if (name.startsWith('__')) name = `f${name}`
  if (RESERVED.has(name)) name = `${name}_column`
  let candidate = name
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`
  return candidate
}

const VIEW_KINDS: Readonly<Record<string, string>> = { v: 'a view', m: 'a materialized view', f: 'a foreign table' }

function groupBy<T> (items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>()
  for (const item of items) {
    const list = map.get(key(item))
    if (list === undefined) map.set(key(item), [item])
    else list.push(item)
  }
  return map
}

export function planInit (catalog: Catalog, options: InitOptions = {}): InitPlan {
  const wanted = options.tables === undefined ? undefined : new Set(options.tables)
  if (wanted !== undefined) {
    const missing = [...wanted].filter((t) => !catalog.relations.some((r) => r.name === t)).sort()
    if (missing.length > 0) throw new InitError(`not in schema ${catalog.schema}: ${missing.join(', ')}`)
  }
  if (catalog.relations.length === 0) throw new InitError(`schema ${catalog.schema} has no tables or views`)
  const columnsOf = groupBy(catalog.columns, (c) => c.relation)
  const constraintsOf = groupBy(catalog.constraints, (c) => c.relation)
  const leftOut: Array<{ table: string, why: string }> = []
  const resources: ResourceDraft[] = []
  const byOid = new Map<string, ResourceDraft>()
  for (const relation of catalog.relations) {
    if (wanted !== undefined && !wanted.has(relation.name)) continue
    const outcome = draftResource(catalog, relation, columnsOf.get(relation.oid) ?? [], constraintsOf.get(relation.oid) ?? [], options)
    if ('why' in outcome) { leftOut.push({ table: relation.name, why: outcome.why }); continue }
    resources.push(outcome)
    byOid.set(relation.oid, outcome)
  }
  const relationNames = new Map(catalog.relations.map((r) => [r.oid, r.name]))
  for (const [oid, resource] of byOid) linkReferences(resource, constraintsOf.get(oid) ?? [], byOid, relationNames)
  addRelations(resources)
  resources.sort((a, b) => compare(a.name, b.name))
  leftOut.sort((a, b) => compare(a.table, b.table))
  return { schema: catalog.schema, resources, leftOut }
}

export class InitError extends Error {}

/** Code-point order, the same on every machine (localeCompare is not). */
export function compare (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function draftResource (catalog: Catalog, relation: CatalogRelation, columns: readonly CatalogColumn[], constraints: readonly CatalogConstraint[], options: InitOptions): ResourceDraft | { why: string } {
  if (relation.partitionOf !== null) return { why: `a partition of ${relation.partitionOf}: served through it` }
  if (AUTH_STORE_TABLES.has(relation.name)) return { why: `never a resource: ${AUTH_STORE_TABLE_WHY}` }
  // The resource is named after its table; `table` quotes the name where SQL must (capitals, `-`).
  if (!RESOURCE_NAME.test(relation.name)) return { why: 'its name is not a resource name (a letter or _, then letters, digits, _ or -): rename it, or serve it through a view' }
  const view = VIEW_KINDS[relation.kind]
  if (view !== undefined && options.views !== true) return { why: `${view} (pass --views to serve views, read-only)` }
  const fields: FieldDraft[] = []
  const leftOutColumns: Array<{ column: string, why: string }> = []
  const taken = new Set<string>()
  for (const column of columns) {
    const outcome = columnField(column, fieldName(column.name, taken), catalog.types)
    if ('leftOut' in outcome) {
      const blocking = column.notNull && column.defaultExpression === null && column.identity === '' && column.generated === ''
      leftOutColumns.push({ column: column.name, why: `${outcome.leftOut}${blocking && view === undefined ? '; it is NOT NULL without a default, so creates fail until it has one' : ''}` })
      continue
    }
    taken.add(outcome.field.name)
    fields.push(outcome.field)
  }
  const fieldOf = (column: string): FieldDraft | undefined => fields.find((f) => f.column === column)
  let key: string[]
  const primary = constraints.find((c) => c.kind === 'p')
  if (view !== undefined) {
    const id = fieldOf('id')
    if (id === undefined || id.type === 'json') return { why: `${view} without a column id to stand for a key` }
    key = [id.name]
  } else {
    if (primary === undefined) return { why: 'no primary key: a record is named by its key (ALTER TABLE ... ADD PRIMARY KEY)' }
    const missing = primary.columns.filter((c) => fieldOf(c) === undefined || fieldOf(c)!.type === 'json')
    if (missing.length > 0) return { why: `its primary key column ${missing.join(', ')} cannot be a field (${missing.map((c) => leftOutColumns.find((l) => l.column === c)?.why ?? 'json').join('; ')})` }
    key = primary.columns.map((c) => fieldOf(c)!.name)
  }
  const notes: string[] = []
  if (view !== undefined) notes.push(`${view}: served read-only, keyed by id (check that it is unique)`)
  applyChecks(constraints, fields, notes)
  const name = relation.name
  const table = sqlNameText(catalog.schema === 'public' ? [name] : [catalog.schema, name])
  const draft: ResourceDraft = { name, table, tableName: relation.name, view: view !== undefined, key, fields, leftOut: leftOutColumns, relations: new Map(), suggestions: [], notes, indexed: catalog.indexLeads.get(relation.oid) ?? new Set() }
  suggest(draft, columns, catalog)
  return draft
}

/** The table's CHECK constraints as options of the fields they name; the rest as notes. */
function applyChecks (constraints: readonly CatalogConstraint[], fields: readonly FieldDraft[], notes: string[]): void {
  for (const constraint of constraints) {
    if (constraint.kind !== 'c' || constraint.definition === null) continue
    const reading = readCheck(constraint.definition)
    const byColumn = new Map<FieldDraft, CheckFact[]>()
    let unused = !reading.understood
    const why: string[] = []
    for (const fact of reading.facts) {
      const field = fields.find((f) => f.column === fact.column)
      if (field === undefined) { unused = true; continue }
      byColumn.set(field, [...byColumn.get(field) ?? [], fact])
    }
    for (const [field, facts] of byColumn) {
      const left = applyFacts(field, facts)
      if (left.length > 0) { unused = true; why.push(`${field.name}: ${left.join('; ')}`) }
    }
    if (unused) notes.push(`check ${constraint.name} not (all) turned into options, the database still enforces it: ${constraint.definition}${why.length > 0 ? ` (${why.join('; ')})` : ''}`)
  }
}

const SUGGESTIONS: ReadonlyArray<{ option: string, columns: readonly string[], types: readonly string[], why: string }> = [
  { option: 'softDelete', columns: ['deleted_at'], types: ['timestamptz'], why: 'a nullable timestamptz named like a deletion mark' },
  { option: 'version', columns: ['version', 'updated_at'], types: ['int2', 'int4', 'int8', 'timestamptz'], why: 'named like a row version; every write would bump it' },
  { option: 'owner', columns: ['owner_id', 'user_id', 'created_by'], types: [], why: 'named like the owning user\'s id (what .own capabilities compare)' },
  { option: 'tenant', columns: ['tenant_id', 'org_id'], types: [], why: 'named like a tenant column: rows of other tenants would not exist for a caller' },
]

function suggest (draft: ResourceDraft, columns: readonly CatalogColumn[], catalog: Catalog): void {
  for (const rule of SUGGESTIONS) {
    const column = rule.columns.map((name) => columns.find((c) => c.name === name)).find((c) => c !== undefined)
    if (column === undefined) continue
    const field = draft.fields.find((f) => f.column === column.name)
    if (field === undefined) continue
    const type = catalog.types.get(column.typeOid)?.name ?? ''
    if (rule.types.length > 0 && !rule.types.includes(type)) continue
    if (rule.option === 'softDelete' && column.notNull) continue
    draft.suggestions.push({ option: rule.option, value: rule.option === 'owner' ? field.name : column.name, why: rule.why })
  }
}

/** Foreign keys of one column onto a served table's one-field key → `references`; the rest → notes. */
function linkReferences (resource: ResourceDraft, constraints: readonly CatalogConstraint[], byOid: ReadonlyMap<string, ResourceDraft>, relationNames: ReadonlyMap<string, string>): void {
  for (const constraint of constraints) {
    if (constraint.kind !== 'f') continue
    const target = constraint.target === null ? undefined : byOid.get(constraint.target)
    const targetName = constraint.target === null ? '?' : relationNames.get(constraint.target) ?? 'a table of another schema'
    const label = `foreign key ${constraint.name} (${constraint.columns.join(', ')}) → ${targetName}`
    if (constraint.columns.length !== 1) { resource.notes.push(`${label}: a reference is one field, so this composite key is not one`); continue }
    const field = resource.fields.find((f) => f.column === constraint.columns[0])
    if (field === undefined) { resource.notes.push(`${label}: its column is left out`); continue }
    if (target === undefined) { field.comments.push(`${label}: not a reference, ${targetName} is not served`); continue }
    const [key, ...more] = target.key
    const keyField = target.fields.find((f) => f.name === key)
    if (more.length > 0 || keyField === undefined || keyField.column !== constraint.targetColumns?.[0]) { field.comments.push(`${label}: not a reference, it names ${constraint.targetColumns?.join(', ') ?? '?'} rather than the key of ${target.name}`); continue }
    if (keyField.type !== field.type) { field.comments.push(`${label}: not a reference, ${field.type} does not match the ${keyField.type} key of ${target.name}`); continue }
    field.options.references = target.name
  }
  for (const field of resource.fields) Object.assign(field, { options: orderedOptions(field.options) })
}

function stem (field: FieldDraft): string {
  const m = /^(.+?)_?(id|Id|ID)$/.exec(field.name)
  return m === null ? field.name : m[1]!.replace(/_$/, '')
}

/** To-one relations on each referencing field, to-many back on the resource it references; names never clash with fields or each other. */
function addRelations (resources: readonly ResourceDraft[]): void {
  const byName = new Map(resources.map((r) => [r.name, r]))
  const free = (resource: ResourceDraft, name: string): boolean =>
    NAME.test(name) && !name.startsWith('__') && !RESERVED.has(name) && !resource.fields.some((f) => f.name === name) && !resource.relations.has(name)
  const pick = (resource: ResourceDraft, candidates: readonly string[]): string | undefined => {
    const base = candidates.find((c) => free(resource, c)) ?? candidates.at(-1)!
    if (free(resource, base)) return base
    for (let n = 2; n < 100; n++) if (free(resource, `${base}_${n}`)) return `${base}_${n}`
    return undefined
  }
  const links = [...resources].sort((a, b) => compare(a.name, b.name))
    .flatMap((resource) => resource.fields.filter((f) => typeof f.options.references === 'string').map((field) => ({ resource, field, target: byName.get(field.options.references as string)! })))
  for (const { resource, field, target } of links) {
    const name = pick(resource, [stem(field), target.name, `${stem(field)}_record`])
    if (name !== undefined) resource.relations.set(name, { field: field.name })
  }
  for (const { resource, field, target } of links) {
    const source = resource.name
    const siblings = links.filter((l) => l.resource === resource && l.target === target).length
    const qualified = `${source}_by_${stem(field)}`
    const name = pick(target, resource === target || siblings > 1 ? [qualified] : [source, qualified])
    const unindexed = resource.indexed.has(field.column) ? {} : { unindexed: { table: resource.table, index: `CREATE INDEX ON ${resource.table} (${sqlNameText([field.column])})` } }
    if (name !== undefined) target.relations.set(name, { resource: resource.name, by: field.name, ...unindexed })
  }
}
