// Records as JSON text. A record is written from the row as read by its field selection's writer,
// made once, which escapes a value only where its type can need it. A page's records are built as
// objects by the selection's builder and the page is one JSON.stringify (./envelopes.ts).
import type { FieldModel, FieldType } from '../model/types.js'
import type { Row } from './record.js'
import type { Selection } from '../model/selection.js'
import { compiledFunction, ShapeFunction } from './shape-function.js'

type ValueWriter = (value: unknown) => string

const anyValue: ValueWriter = (value) => value === undefined ? 'null' : JSON.stringify(value)

// These types are read as PostgreSQL's text of digits, signs, letters, dashes, colons and dots
// (lib/db/types.ts): there is nothing in them to escape.
const PLAIN_TEXT: ReadonlySet<FieldType> = new Set<FieldType>(['bigint', 'decimal', 'date', 'timestamp', 'uuid'])
const plainText: ValueWriter = (value) => typeof value === 'string' ? '"' + value + '"' : anyValue(value)

// Most text has nothing to escape: one test instead of JSON.stringify's copy (48 vs 70 ns).
// Quotes, backslashes, control characters and surrogates (a lone one is escaped) go the long way.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/
const text: ValueWriter = (value) => typeof value === 'string' && !NEEDS_ESCAPE.test(value) ? '"' + value + '"' : anyValue(value)

// A finite number's JSON is its text, and a boolean's its name: no call into JSON.stringify
// (a page of 50 records with an integer version column wrote in 25 µs instead of 30).
const numeric: ValueWriter = (value) => typeof value === 'number' && Number.isFinite(value) ? '' + value : anyValue(value)
const boolean: ValueWriter = (value) => value === true ? 'true' : value === false ? 'false' : anyValue(value)

/** An ETag (`"…"`) as a JSON string: its two quotes escaped, where nothing between them needs it. */
function etagJson (etag: string): string {
  const inner = etag.slice(1, -1)
  const quoted = etag.length >= 2 && etag.charCodeAt(0) === 34 && etag.charCodeAt(etag.length - 1) === 34
  return quoted && !NEEDS_ESCAPE.test(inner) ? '"\\"' + inner + '\\""' : JSON.stringify(etag)
}

export type RecordWriter = (row: Row, etag: string, permissions: string | undefined) => string

function writerOf (field: FieldModel): ValueWriter {
  if (PLAIN_TEXT.has(field.type)) return plainText
  switch (field.type) {
    case 'string': return text
    case 'integer': case 'number': return numeric
    case 'boolean': return boolean
    default: return anyValue
  }
}

/**
 * The writer of a field selection, generated as one concatenation (Fastify's serializers do the
 * same): each field is read by a constant name, which V8 serves from its inline caches, where a
 * loop reading `row[name]` is a lookup by a varying key (measured 18 against 22 µs a page of 50).
 * Names enter the generated code only as JSON string literals.
 */
function fieldsCode (select: readonly FieldModel[]): string[] {
  return select.map((field, i) => `${JSON.stringify(`${i === 0 ? '' : ','}${JSON.stringify(field.name)}:`)} + write[${i}](row[${JSON.stringify(field.name)}])`)
}

function compileWriter ({ fields: select }: Selection): RecordWriter {
  const etag = JSON.stringify(select.length === 0 ? '"etag":' : ',"etag":')
  return new Function('write', 'etagJson', `return function writeRecord (row, etag, permissions) {
    return '{' + ${[...fieldsCode(select), `${etag} + etagJson(etag)`].join(' + ')} + (permissions === undefined ? '' : ',"permissions":' + permissions) + '}'
  }`)(select.map(writerOf), etagJson) as RecordWriter
}

/** The selected fields alone, for exports: no etag, no permissions. */
function compileFieldsWriter ({ fields: select }: Selection): (row: Row) => string {
  return new Function('write', `return function writeFields (row) {
    return '{' + ${select.length === 0 ? "''" : fieldsCode(select).join(' + ')} + '}'
  }`)(select.map(writerOf)) as (row: Row) => string
}

/**
 * The writer of records with these fields: each record is the selected fields in order, `etag`,
 * then `permissions` (already JSON) when given. A row as read or a record built from one will
 * do; only the selected fields are read from it. A page asks for it once, not once a row.
 */
const kWriter = Symbol('recordWriter')

export function recordWriter (select: Selection): RecordWriter {
  return select.derive(kWriter, compileWriter)
}

const kFieldsWriter = Symbol('fieldsWriter')

/** The writer of a row's selected fields as one JSON object, as `recordWriter` writes them. */
export function fieldsWriter (select: Selection): (row: Row) => string {
  return select.derive(kFieldsWriter, compileFieldsWriter)
}

/** One record, as `recordWriter` writes it. */
export function recordJson (select: Selection, row: Row, etag: string, permissions?: string): string {
  return recordWriter(select)(row, etag, permissions)
}

/**
 * A record as an object of its selected fields, its embedded relations (`embedded`, in the order
 * the builder was made for), `etag` and `permissions`, for JSON.stringify.
 */
export type RecordBuilder = (row: Row, etag: string | undefined, permissions: unknown, embedded?: readonly unknown[]) => Row

/**
 * The builder of a selection's records, generated as one object literal (the shape is the same for
 * every record, fields read by constant names). A missing value is null, as the writer writes it;
 * `etag` or `permissions` left undefined is left out (an exported embed has no etag).
 */
function compileBuilder ({ fields: select }: Selection, relations: readonly string[] = []): RecordBuilder {
  const properties = select.map((field) => `${JSON.stringify(field.name)}: row[${JSON.stringify(field.name)}] ?? null`)
  const embedded = relations.map((name, i) => `${JSON.stringify(name)}: embedded[${i}]`)
  return compiledFunction('buildRecord', ['row', 'etag', 'permissions', 'embedded'], `return { ${[...properties, ...embedded, 'etag', 'permissions'].join(', ')} }`)
}

/**
 * A selection's records built by a loop over its fields' names: what its first pages are built
 * with, before its own builder is compiled (./shape-function.ts). Pages of 300 field sets new to
 * the server took 120-180 µs more server CPU each with a builder compiled at once than with this
 * loop. The records are the same objects: the same properties in the same order.
 */
function loopBuilder ({ fields: select }: Selection, relations: readonly string[]): RecordBuilder {
  const names = select.map((field) => field.name)
  return (row, etag, permissions, embedded) => {
    const record: Row = {}
    for (const name of names) record[name] = row[name] ?? null
    for (let i = 0; i < relations.length; i++) record[relations[i]!] = embedded![i]
    record.etag = etag
    record.permissions = permissions
    return record
  }
}

function builders (select: Selection, relations: readonly string[]): ShapeFunction<RecordBuilder> {
  return new ShapeFunction(loopBuilder(select, relations), () => compileBuilder(select, relations))
}

const kBuilders = Symbol('recordBuilders')
const kEmbeddingBuilders = Symbol('embeddingBuilders')

/**
 * Pages are records built as objects and written by one JSON.stringify, not the writer's text:
 * V8's native writer makes the page in one pass, where the writer's records are ropes of small
 * strings that `join` and then the socket flatten again. A page of 50, turned into the bytes sent,
 * measured 27-31 against 41-45 µs on Node 24 and 26-32 against 32-38 µs on Node 22 (on Node 20,
 * outside `engines`, the writer had won). Every value the writer writes is written as
 * JSON.stringify writes it (test/unit/record-json.test.ts holds the two to the same bytes).
 * `relations` names the embedded relations a record carries after its fields, in that order.
 * Asked for once a page; the first asks of a selection get loopBuilder's builder.
 */
export function recordBuilder (select: Selection, relations: readonly string[] = []): RecordBuilder {
  if (relations.length === 0) return select.derive(kBuilders, (s) => builders(s, [])).get()
  // Relation names come from the model, so a selection has few such builders.
  const byRelations = select.derive(kEmbeddingBuilders, () => new Map<string, ShapeFunction<RecordBuilder>>())
  const key = relations.join(',')
  let made = byRelations.get(key)
  if (made === undefined) {
    made = builders(select, relations)
    byRelations.set(key, made)
  }
  return made.get()
}
