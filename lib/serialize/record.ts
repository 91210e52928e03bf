// Rows → records as the caller sees them: the selected fields in model order, then `etag`.
// ETags are computed here, from values as read, so lists need no extra query and PostgreSQL spends
// nothing on them:
// - with a version column: a hash of the resource and the version's exact text (SPEC: a hash of
//   that column's text). An ETag only ever meets its own record's If-Match, so the key adds
//   nothing, and leaving it out makes the ETag of a version the same for every record;
// - without one: a hash of the resource, the key and every field the caller may read.
import { hash } from 'node:crypto'
import type { FieldModel, ResourceModel } from '../model/types.js'

export interface RecordShape {
  readonly model: ResourceModel
  /** The fields the response carries (the `fields` mask). */
  readonly select: readonly FieldModel[]
  /** Every field the caller may read. */
  readonly readable: readonly FieldModel[]
}

export type Row = Record<string, unknown>
export type RecordValues = Record<string, unknown> & { etag: string }

const versionFields = new WeakMap<ResourceModel, FieldModel | null>()

export function versionField (model: ResourceModel): FieldModel | undefined {
  let field = versionFields.get(model)
  if (field === undefined) {
    field = [...model.fields.values()].find((f) => f.managed === 'version') ?? null
    versionFields.set(model, field)
  }
  return field ?? undefined
}

const modelFields = new WeakMap<ResourceModel, readonly FieldModel[]>()
const fetchedBySelection = new WeakMap<readonly FieldModel[], { readonly readable: readonly FieldModel[], readonly fields: readonly FieldModel[] }>()

function allFields (model: ResourceModel): readonly FieldModel[] {
  let fields = modelFields.get(model)
  if (fields === undefined) {
    fields = [...model.fields.values()]
    modelFields.set(model, fields)
  }
  return fields
}

/**
 * The fields a query fetches: the selected ones, and what the ETag needs (key and version, or all
 * readable fields). `stored` fetches every field: record checks judge the stored record, hidden
 * fields included, though only the readable projection ever leaves the server.
 */
export function fetchedFields (shape: RecordShape, stored = false): readonly FieldModel[] {
  if (stored) return allFields(shape.model)
  // The same selection fetches the same fields: found again by the arrays, so the SQL column list
  // of the result is found by identity too (lib/model/selection.ts).
  const known = fetchedBySelection.get(shape.select)
  if (known !== undefined && known.readable === shape.readable) return known.fields
  const version = versionField(shape.model)
  const needed = new Set<FieldModel>([...shape.select, ...shape.model.key])
  for (const f of version !== undefined ? [version] : shape.readable) needed.add(f)
  const fields = allFields(shape.model).filter((f) => needed.has(f))
  fetchedBySelection.set(shape.select, { readable: shape.readable, fields })
  return fields
}

/** The stored record a record check judges: every fetched field, none of the query's helper columns. */
export function storedRecord (model: ResourceModel, row: Row): Row {
  const record: Row = {}
  for (const f of model.fields.values()) if (f.name in row) record[f.name] = row[f.name]
  return record
}

// Hashing is most of an ETag's cost, and a version's ETag is the same for every record of the
// resource: each model keeps the ETags of recent versions, keyed by the value as read (a number
// for integer versions, so no text is built to look one up), and the way back for If-Match.
interface RecentVersions {
  readonly etags: Map<unknown, string>
  readonly versions: Map<string, unknown>
}
const recentVersions = new WeakMap<ResourceModel, RecentVersions>()
const RECENT_VERSIONS = 10_000

function recentOf (model: ResourceModel): RecentVersions {
  let recent = recentVersions.get(model)
  if (recent === undefined) {
    recent = { etags: new Map(), versions: new Map() }
    recentVersions.set(model, recent)
  }
  return recent
}

function versionEtag (model: ResourceModel, recent: RecentVersions, value: unknown): string {
  let etag = recent.etags.get(value)
  if (etag === undefined) {
    // Resource and version text are plain text without NUL: joined with one, unambiguous.
    etag = '"' + hash('sha256', model.name + '\0' + String(value), 'hex').slice(0, 32) + '"'
    if (recent.etags.size >= RECENT_VERSIONS) {
      recent.etags.clear()
      recent.versions.clear()
    }
    recent.etags.set(value, etag)
    recent.versions.set(etag, value)
  }
  return etag
}

/**
 * The version value an ETag was computed from, when this process computed it recently; undefined
 * when it does not know (which says nothing about whether the ETag is current).
 */
export function versionOfEtag (model: ResourceModel, etag: string): unknown {
  return recentOf(model).versions.get(etag)
}

/** The ETag of each row of a shape; a page asks for it once, not once a row. */
export function etagsOf (shape: RecordShape): (row: Row) => string {
  const { model } = shape
  const version = versionField(model)
  if (version !== undefined) {
    const recent = recentOf(model)
    const name = version.name
    return (row) => versionEtag(model, recent, row[name])
  }
  return (row) => {
    const parts: unknown[] = [model.name]
    for (const f of model.key) parts.push(row[f.name])
    for (const f of shape.readable) parts.push(row[f.name] ?? null)
    return '"' + hash('sha256', JSON.stringify(parts), 'hex').slice(0, 32) + '"'
  }
}

export function etagOf (shape: RecordShape, row: Row): string {
  return etagsOf(shape)(row)
}

/** The record for the response: selected fields, then its etag (computed from the fetched row). */
export function present (shape: RecordShape, row: Row): RecordValues {
  const record: Row = {}
  for (const f of shape.select) record[f.name] = row[f.name]
  record.etag = etagOf(shape, row)
  return record as RecordValues
}
