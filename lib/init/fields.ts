// One column → one field, or the reason it cannot be one: the column's type followed through its
// domains to the base, and the options that type, its constraints and its default give.
import type { FieldType } from '../model/types.js'
import type { CatalogColumn, CatalogType } from './catalog.js'
import { readCheck, type CheckFact } from './check.js'

/** Base type names (`pg_type.typname`) and the field type each is served as; enums are strings. */
const FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  text: 'string', varchar: 'string', bpchar: 'string', citext: 'string', name: 'string',
  int2: 'integer', int4: 'integer', int8: 'bigint',
  float4: 'number', float8: 'number', numeric: 'decimal',
  bool: 'boolean', date: 'date', timestamptz: 'timestamp', uuid: 'uuid', json: 'json', jsonb: 'json',
}

/** Why a column of a type no field type holds is left out. */
const UNSERVED: Readonly<Record<string, string>> = {
  tsvector: 'a text-search vector, which no field type holds (search text fields with `searchable` instead)',
  bytea: 'binary data, which no field type holds',
  timestamp: 'timestamp without time zone: the timestamp field type needs timestamptz (ALTER COLUMN ... TYPE timestamptz)',
}

/** pg_type.typtype → what the type is, for the reason a column is left out. */
const KIND_NAMES: Readonly<Record<string, string>> = { c: 'a composite type', r: 'a range type', m: 'a multirange type', p: 'a pseudo-type' }

/** A column's type as served: the base type, with what its domains add on the way. */
export interface ResolvedType {
  readonly base: CatalogType
  readonly typmod: number
  readonly notNull: boolean
  readonly checks: readonly string[]
  /** The domains passed through, outermost first (for the comment saying so). */
  readonly domains: readonly string[]
}

export function resolveType (types: ReadonlyMap<string, CatalogType>, oid: string, typmod: number): ResolvedType | undefined {
  let type = types.get(oid)
  let mod = typmod
  let notNull = false
  const checks: string[] = []
  const domains: string[] = []
  while (type?.kind === 'd') {
    domains.push(type.text)
    if (mod < 0) mod = type.typmod
    notNull ||= type.notNull
    checks.push(...type.checks ?? [])
    type = types.get(type.base)
  }
  return type === undefined ? undefined : { base: type, typmod: mod, notNull, checks, domains }
}

export type FieldOptions = Record<string, unknown>

export interface FieldDraft {
  readonly name: string
  readonly column: string
  readonly type: FieldType
  /** The base type's name (`pg_type.typname`). */
  readonly pgType: string
  /** In the order they are written. */
  readonly options: FieldOptions
  readonly comments: string[]
}

export type ColumnOutcome = { readonly field: FieldDraft } | { readonly leftOut: string }

const VARHDRSZ = 4

/** The field type of a resolved column type, or why there is none. */
export function fieldTypeOf (type: ResolvedType): FieldType | string {
  const base = type.base
  if (base.category === 'A') return base.elementKind === 'c' ? 'an array of a composite type, which no field type holds' : `an array (${base.text}), which no field type holds`
  if (base.kind === 'e') return 'string'
  const fieldType = FIELD_TYPES[base.name]
  if (fieldType !== undefined && base.kind === 'b') return fieldType
  return UNSERVED[base.name] ?? `${KIND_NAMES[base.kind] ?? 'a type'} (${base.text}) that no field type holds`
}

/** What CHECK facts about one column make of its options; what they cannot say is returned as a note. */
export function applyFacts (draft: FieldDraft, facts: readonly CheckFact[]): string[] {
  const notes: string[] = []
  const { type, options } = draft
  for (const fact of facts) {
    if (fact.rounded === true && type !== 'integer' && type !== 'bigint') { notes.push(`it compares ${draft.name} rounded to a whole number, which a ${type} field is not`); continue }
    if (fact.kind === 'enum') {
      if (draft.pgType === 'bpchar') { notes.push(`values of ${draft.name} are read padded to the length of char(n), so a list of them is not an enum`); continue }
      const fits = fact.values.every((v) => type === 'string' ? typeof v === 'string' : (type === 'integer' || type === 'number') && typeof v === 'number')
      if (!fits) { notes.push(`values (${fact.values.join(', ')}) do not fit a ${type} field`); continue }
      const before = options.enum as Array<string | number> | undefined
      const both = before === undefined ? [...fact.values] : before.filter((v) => fact.values.includes(v))
      if (both.length === 0) { notes.push(`no value of ${draft.name} is in both (${before!.join(', ')}) and (${fact.values.join(', ')})`); continue }
      options.enum = both
      continue
    }
    if (type !== 'integer' && type !== 'number') { notes.push(`a ${fact.kind} of ${fact.value} on a ${type} field, which takes none`); continue }
    let value = fact.value
    if (fact.exclusive) {
      if (type !== 'integer' || !Number.isInteger(value)) { notes.push(`an exclusive ${fact.kind} (${fact.value}) on a ${type} field, which takes only inclusive ones`); continue }
      value = fact.kind === 'minimum' ? value + 1 : value - 1
    }
    const before = options[fact.kind] as number | undefined
    options[fact.kind] = before === undefined ? value : fact.kind === 'minimum' ? Math.max(before, value) : Math.min(before, value)
  }
  return notes
}

const OPTION_ORDER = ['type', 'column', 'required', 'readOnly', 'dbDefault', 'maxLength', 'enum', 'minimum', 'maximum', 'references']

/** The options in the one order they are written, so a rerun writes the same bytes. */
export function orderedOptions (options: FieldOptions): FieldOptions {
  return Object.fromEntries(OPTION_ORDER.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]))
}

/** A column → its field (type, required, read-only, defaults, length, its domains' and enum's values), or why it is left out. */
export function columnField (column: CatalogColumn, name: string, types: ReadonlyMap<string, CatalogType>): ColumnOutcome {
  const type = resolveType(types, column.typeOid, column.typmod)
  if (type === undefined) return { leftOut: 'its type was not found in the catalog' }
  const fieldType = fieldTypeOf(type)
  if (!(fieldType in COLUMN_TYPE_NAMES)) return { leftOut: fieldType }
  const options: FieldOptions = { type: fieldType }
  const comments: string[] = []
  if (name !== column.name) options.column = column.name
  const serial = column.defaultExpression?.startsWith('nextval(') === true
  const hasDefault = column.defaultExpression !== null || column.identity !== ''
  if (column.generated !== '') {
    options.readOnly = true
    comments.push('generated column: the database computes it')
  } else {
    if ((column.notNull || type.notNull) && !hasDefault) options.required = true
    if (column.identity !== '' || serial) options.readOnly = true
    if (hasDefault) options.dbDefault = true
  }
  if ((type.base.name === 'varchar' || type.base.name === 'bpchar') && type.typmod >= VARHDRSZ) options.maxLength = type.typmod - VARHDRSZ
  if (type.base.kind === 'e' && type.base.labels !== null) options.enum = [...type.base.labels]
  if (type.domains.length > 0) comments.push(`domain ${type.domains.join(' over ')} over ${type.base.text}`)
  const draft: FieldDraft = { name, column: column.name, type: fieldType as FieldType, pgType: type.base.name, options, comments }
  for (const check of type.checks) {
    const reading = readCheck(check)
    const facts = reading.facts.filter((f) => f.column === 'value')
    const notes = applyFacts(draft, facts)
    if (!reading.understood || facts.length < reading.facts.length || notes.length > 0) comments.push(`domain check not turned into options: ${check}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`)
  }
  return { field: draft }
}

const COLUMN_TYPE_NAMES: Readonly<Record<FieldType, true>> = {
  string: true, integer: true, bigint: true, number: true, decimal: true, boolean: true, date: true, timestamp: true, uuid: true, json: true,
}
