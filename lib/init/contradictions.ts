// The third kind of drift: a constraint of the database that contradicts a field option, so the
// config promises a value (or a create without one) the database refuses. Only what a start does not
// refuse already: an enum value outside an enum type, a CHECK list or bound, or varchar(n); a bound
// or length wider than a CHECK, the column's type or varchar(n); a `default` a CHECK refuses (a start
// checks it against the column's type, not its CHECKs); a create that may leave out a NOT NULL column
// without a default; `nullable: true` on a NOT NULL column. A fact comes from a CHECK only where
// check.ts reads it in full, so a line is never drawn from a guess.
import { columnLimit, columnLimitBroken } from '../model/column-limits.js'
import type { FieldConfig } from '../config/schema.js'
import type { FieldModel } from '../model/types.js'
import { readCheck, type CheckFact } from './check.js'

/** What drift.ts reads of one column. */
export interface DriftColumn {
  readonly column: string
  /** The base type's name (`enum` for an enum type). */
  readonly type: string
  readonly typeText: string
  readonly typmod: number
  readonly labels: readonly string[] | null
  /** NOT NULL on the column or one of its domains. */
  readonly notNull: boolean
  /** A default, an identity or a generated column: the database fills a create that leaves it out. */
  readonly filled: boolean
  /** Its domains' CHECKs: `[domain, constraint name, definition]`. */
  readonly domainChecks: ReadonlyArray<readonly [string, string, string]> | null
}

/** A table's CHECK constraint. */
export interface DriftCheck { readonly name: string, readonly definition: string }

interface Fact { readonly fact: CheckFact, readonly source: string }

/** The facts of the table's CHECKs and the column's domains about one column. */
function factsOf (column: DriftColumn, checks: readonly DriftCheck[]): Fact[] {
  const facts: Fact[] = []
  for (const check of checks) {
    for (const fact of readCheck(check.definition).facts) if (fact.column === column.column) facts.push({ fact, source: `check ${check.name}` })
  }
  for (const [domain, name, definition] of column.domainChecks ?? []) {
    for (const fact of readCheck(definition).facts) if (fact.column === 'value') facts.push({ fact, source: `check ${name} of domain ${domain}` })
  }
  return facts
}

/** Whether a fact refuses the value; undefined where it cannot say (a fact the field's type does not match). */
function refuses (fact: CheckFact, value: unknown, field: FieldModel, column: DriftColumn): boolean | undefined {
  // A column rounded before the comparison, or a char(n) read padded, is not judged value by value.
  if (fact.rounded === true && field.type !== 'integer') return undefined
  if (fact.kind === 'enum') {
    if (column.type === 'bpchar') return undefined
    const same = fact.values.every((v) => typeof v === typeof value)
    return same && (typeof value === 'string' || typeof value === 'number') ? !fact.values.includes(value) : undefined
  }
  if (typeof value !== 'number') return undefined
  if (fact.kind === 'minimum') return fact.exclusive ? value <= fact.value : value < fact.value
  return fact.exclusive ? value >= fact.value : value > fact.value
}

const show = (value: unknown): string => typeof value === 'string' ? `'${value}'` : JSON.stringify(value)

/** The values of a list the column refuses, grouped by what refuses them: `'a', 'b' (check c)`. */
function refusedValues (values: readonly unknown[], field: FieldModel, column: DriftColumn, facts: readonly Fact[], limitToo: boolean): string[] {
  const limit = columnLimit(column.type, column.typmod, column.labels)
  const bySources = new Map<string, string[]>()
  for (const value of values) {
    if (value === null) continue
    const by = facts.filter((f) => refuses(f.fact, value, field, column) === true).map((f) => f.source)
    if (limitToo && columnLimitBroken(limit, value) !== undefined) by.unshift(column.typeText)
    if (by.length > 0) bySources.set(by.join(', '), [...bySources.get(by.join(', ')) ?? [], show(value)])
  }
  return [...bySources].map(([sources, shown]) => `${shown.join(', ')} (${sources})`)
}

/** One field, its options as written, its column and the table's CHECKs; `owner`: the server may fill it on create. */
export interface FieldInDatabase {
  readonly path: string
  readonly table: string
  readonly field: FieldModel
  readonly options: FieldConfig
  readonly column: DriftColumn
  readonly checks: readonly DriftCheck[]
  readonly owner: boolean
  /** No one may create (`access.create: false`): a create's missing value is no one's problem. */
  readonly noCreate: boolean
}

/** The lines of one field, each starting with its option's path. */
export function contradictions ({ path, table, field, options, column, checks, owner, noCreate }: FieldInDatabase): string[] {
  const at = `${path}.fields.${field.name}`
  const of = `column '${column.column}' of table ${table}`
  const facts = factsOf(column, checks)
  const limit = columnLimit(column.type, column.typmod, column.labels)
  const lines: string[] = []
  if (options.enum !== undefined) {
    const refused = refusedValues(options.enum, field, column, facts, true)
    if (refused.length > 0) lines.push(`${at}.enum: ${of} refuses ${refused.join(', ')}`)
  } else {
    // An enum, where there is one, is all a value is checked against: bounds and lengths only without.
    for (const kind of ['minimum', 'maximum'] as const) {
      const bound = options[kind]
      if (bound === undefined || !Number.isFinite(bound)) continue
      const by = facts.filter((f) => f.fact.kind === kind && refuses(f.fact, bound, field, column) === true).map((f) => f.source)
      if (limit?.kind === 'integer' && (kind === 'minimum' ? BigInt(Math.ceil(bound)) < limit.min : BigInt(Math.floor(bound)) > limit.max)) by.unshift(column.typeText)
      if (by.length > 0) lines.push(`${at}.${kind}: ${of} refuses ${bound} (${by.join(', ')})`)
    }
    if (options.maxLength !== undefined && limit?.kind === 'characters' && options.maxLength > limit.max) {
      lines.push(`${at}.maxLength: ${of} holds at most ${limit.max} characters (${column.typeText}), not ${options.maxLength}`)
    }
  }
  // The start checks a default against the column's type, not its CHECKs.
  if (options.default !== undefined && options.default !== null) {
    const refused = refusedValues([options.default], field, column, facts, false)
    if (refused.length > 0) lines.push(`${at}.default: ${of} refuses ${refused.join(', ')}`)
  }
  if (column.notNull && field.managed === undefined && !owner && !noCreate && !column.filled) {
    // A config `default` fills a create, but not of a read-only field (no body writes one).
    if (field.readOnly) lines.push(`${at}: ${of} is NOT NULL without a default, and a read-only field gives it no value: every create fails`)
    else if (!field.hasDefault && (!field.required || field.dbDefault)) lines.push(`${at}: ${of} is NOT NULL without a default, so a create that leaves ${field.name} out fails: make the field required${field.dbDefault ? ' without dbDefault' : ''}, or give the column a default`)
  }
  if (column.notNull && options.nullable === true) lines.push(`${at}.nullable: ${of} is NOT NULL, so null is refused whatever the option says`)
  return lines
}
