// Filter syntax tree × the caller's QueryModel → CheckedFilter, or every issue found. The checker
// is given only what the caller may filter: a hidden, unknown or non-filterable field is simply
// not declared, so all three get the same issue, word for word. Messages never quote a value.
// The same holds across relations (`customer.country`): the checker is given only the relations
// the caller may follow, and of each target only what they may filter there.
import { nearest } from '../../text.js'
import type { FieldModel } from '../../model/types.js'
import { isValueText } from '../../model/values.js'
import { cover, type QueryIssue, type Span } from '../span.js'
import type { Call, Comparator, FilterNode, Name, Value } from './ast.js'
import { conditionsOf, UNATTACHED, type CheckedFilter, type FilterCondition, type QueryModel, type RelatedScope, type SqlComparator, type TypedValue } from './checked.js'
import { NO_RELATIONS, resolvePath, type PathHop, type PathPurpose, type RelationGraph } from '../paths.js'
import { pgRegexValid } from './regex.js'
import { MAX_HOPS } from '../paths.js'
import { hasWildcard, likePattern, literalText } from './literal.js'
import { isPath, pathOf } from './member.js'
import { jsonTest } from './json-path.js'

export const FUNCTIONS = ['in', 'search', 'similar', 'regex', 'isNull', 'now']

const DURATION = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d|w)$/
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }
const MAX_PATTERN = 1000
/** Bound values per filter: PostgreSQL takes at most 65,535 per statement, and planning slows long before. */
export const MAX_VALUES = 20_000
/** Search terms per filter: each is an ILIKE over every searchable field; thousands would run for seconds. */
export const MAX_SEARCH_TERMS = 32
/** About 1,000 years: now() plus or minus it stays inside PostgreSQL's timestamps. */
const MAX_DURATION_MS = 1000 * 365.25 * UNIT_MS.d!

const TYPE_HINTS: Record<FieldModel['type'], string> = {
  string: 'Quote text: "some text".',
  uuid: 'Use a UUID such as "123e4567-e89b-12d3-a456-426614174000".',
  integer: 'Use a whole number such as 42.',
  bigint: 'Use a whole number such as 42.',
  number: 'Use a number such as 4.5.',
  decimal: 'Use a number such as 4.50.',
  boolean: 'Use true or false.',
  date: 'Quote a date as "2026-01-31".',
  timestamp: 'Use an RFC 3339 timestamp such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00, or now() - 7d.',
  json: 'Compare a key inside it (field.key = "text", field.key > 40), or test field:key, field:* or isNull(field).',
}

/** A string field whose values are a closed list: an enum column, or a config `enum`. */
function isEnum (field: FieldModel): boolean {
  return field.type === 'string' && (field.enumLabels !== undefined || field.enumValues !== undefined)
}

/** Whether a literal's text is the allowed value `allowed` of the field (numbers compare as numbers). */
function sameValue (field: FieldModel, allowed: unknown, text: string): boolean {
  return typeof allowed === 'number' && field.type !== 'string' ? Number(text) === allowed : String(allowed) === text
}

/** A field reached by a path: through the relations `via` (none for the resource's own), then into a json field by `path`. */
interface Member { readonly field: FieldModel, readonly path: readonly Name[], readonly via: readonly PathHop[] }

/** A filter's paths: through any relation, to a field the caller may filter on, then keys into a json one. */
const FILTER_PATHS: PathPurpose = { fields: (query) => query.filterable, toMany: true, endOnRelation: false, keys: true }

/** `a string`, `an integer`. */
function aType (type: FieldModel['type']): string {
  return `${type === 'integer' ? 'an' : 'a'} ${type}`
}

class Checker {
  readonly issues: QueryIssue[] = []
  constructor (private readonly model: QueryModel, private readonly graph: RelationGraph, private readonly scope: RelatedScope) {}

  #issue (code: string, message: string, at: Span, hint?: string): undefined {
    this.issues.push({ code, message, hint, span: at })
    return undefined
  }

  /**
   * A field, a path into a json field, or either reached through relations (lib/query/paths.ts): a
   * hidden or unknown field, or a relation the caller may not follow, is refused before a type is
   * looked at, all alike.
   */
  #member (name: Name, path: readonly Name[]): Member | undefined {
    const names = [name, ...path]
    const resolved = resolvePath(names.map((n) => n.text), this.model, this.graph, FILTER_PATHS)
    if (!resolved.ok) {
      const { failure } = resolved
      const at = cover(name.span, names[failure.at]!.span)
      switch (failure.reason) {
        case 'unknown': {
          const step = names[failure.at]!
          return this.#issue('unknown-field', `There is no field '${failure.written}' to filter on.`, step.span,
            failure.suggestion !== undefined ? `Did you mean '${failure.suggestion}'?` : `Fields you can filter on: ${failure.fields.join(', ') || 'none'}.`)
        }
        case 'relation':
          return this.#issue('invalid-path', `'${failure.written}' is a relation: a filter compares one of its fields.`, names[failure.at]!.span, `Name a field of it: ${failure.written}.${failure.example ?? 'field'}.`)
        case 'too-deep':
          return this.#issue('invalid-path', `A filter follows at most ${MAX_HOPS} relations.`, at, `Filter on a field of ${names.slice(0, failure.at).map((n) => n.text).join('.')}.`)
        case 'to-many':
          throw new Error('a filter follows to-many relations')
      }
    }
    const { hops, field } = resolved.path
    const keys = names.slice(names.length - resolved.path.keys.length)
    if (keys.length === 0 || field!.type === 'json') return { field: field!, path: keys, via: hops }
    const prefix = hops.map((hop) => `${hop.relation.name}.`).join('')
    return this.#issue('invalid-path', `Field '${prefix}${field!.name}' is ${aType(field!.type)}: it has no keys to traverse.`, cover(keys[0]!.span, keys.at(-1)!.span),
      'Only json fields have keys: meta.color = "red".')
  }

  /** A condition on the field a member reaches, as a condition of the resource: one related condition per relation followed. */
  #through (via: readonly PathHop[], condition: CheckedFilter | undefined): CheckedFilter | undefined {
    if (condition === undefined) return undefined
    return via.reduceRight<CheckedFilter>((inner, hop) => ({ kind: 'related', relation: hop.relation, target: hop.target, scope: this.scope, condition: inner }), condition)
  }

  /** A function argument that names a field, or a path into a json one: bare text only. */
  #fieldArg (call: Call, index: number): { field: FieldModel, path: readonly string[], via: readonly PathHop[] } | undefined {
    const arg = call.args[index]
    if (arg === undefined) return this.#issue('wrong-arguments', `${call.name.text}() needs a field as argument ${index + 1}.`, call.span)
    if (arg.kind !== 'literal' || arg.quoted) return this.#issue('wrong-arguments', `Argument ${index + 1} of ${call.name.text}() must be a field name, unquoted.`, arg.span)
    if (!isPath(arg.text)) {
      const member = this.#member({ text: arg.text, span: arg.span }, [])
      return member === undefined ? undefined : { field: member.field, path: [], via: member.via }
    }
    const member = pathOf([{ text: arg.text, start: arg.span.start, end: arg.span.end, quoted: false }])
    if (!member.ok) {
      this.issues.push(member.issue)
      return undefined
    }
    const found = this.#member(member.field, member.path)
    return found === undefined ? undefined : { field: found.field, path: found.path.map((key) => key.text), via: found.via }
  }

  #duration (offset: NonNullable<Extract<Value, { kind: 'now' }>['offset']>): number | undefined {
    const m = DURATION.exec(offset.text)
    if (m === null) return this.#issue('invalid-duration', 'Not a duration.', offset.span, 'Use a number and a unit: 90s, 15m, 12h, 7d or 2w.')
    const ms = Number(m[1]) * UNIT_MS[m[2]!]!
    if (ms > MAX_DURATION_MS) return this.#issue('invalid-duration', 'A duration is limited to 1000 years.', offset.span, 'Use a number and a unit: 90s, 15m, 12h, 7d or 2w.')
    return offset.sign * Math.round(ms * 1000) / 1000
  }

  #value (field: FieldModel, value: Value): TypedValue | undefined {
    if (value.kind === 'now') {
      if (field.type !== 'timestamp' && field.type !== 'date') {
        return this.#issue('type-mismatch', `now() compares only with a timestamp or date field, and '${field.name}' is ${aType(field.type)}.`, value.span, TYPE_HINTS[field.type])
      }
      const offsetMs = value.offset === undefined ? 0 : this.#duration(value.offset)
      return offsetMs === undefined ? undefined : { kind: 'now', offsetMs }
    }
    const text = literalText(value)
    if (!isValueText(field, text)) {
      return this.#issue('type-mismatch', `The value is not a valid ${field.type} for field '${field.name}'.`, value.span,
        DURATION.test(text) ? 'A duration goes with now(): placed_at > now() - 7d.' : TYPE_HINTS[field.type])
    }
    // An enum column and a config enum list both refuse other values, as the database would.
    for (const allowed of [field.enumLabels, field.enumValues]) {
      if (allowed !== undefined && !allowed.some((v) => sameValue(field, v, text))) {
        return this.#issue('type-mismatch', `The value is not one of the values of field '${field.name}'.`, value.span, `One of: ${allowed.map(String).join(', ')}.`)
      }
    }
    return { kind: 'value', value: field.type === 'boolean' ? text === 'true' : text }
  }

  #compare (node: Extract<FilterNode, { kind: 'compare' }>): CheckedFilter | undefined {
    const member = this.#member(node.field, node.path)
    return member === undefined ? undefined : this.#through(member.via, this.#comparison(member.field, member.path, node))
  }

  /** `field op value` on a field a member reached, `path` the keys into it when it is json. */
  #comparison (field: FieldModel, path: readonly Name[], node: Extract<FilterNode, { kind: 'compare' }>): CheckedFilter | undefined {
    const { value, op } = node
    if (path.length > 0) return this.#atPath(field, path.map((key) => key.text), op, value, node.span)
    if (value.kind === 'literal' && !value.quoted && value.text === 'null') {
      if (op === '=' || op === '!=') return { kind: 'null', field, negated: op === '!=' }
      return this.#issue('invalid-null', 'Only = and != compare with null.', node.span, `Write ${field.name} = null or ${field.name} != null.`)
    }
    if (op === ':') return this.#has(field, value)
    if (field.type === 'json') return this.#issue('unsupported-operator', `Field '${field.name}' is json: it cannot be compared.`, node.span, TYPE_HINTS.json)
    if (field.type === 'boolean' && op !== '=' && op !== '!=') {
      return this.#issue('unsupported-operator', `Field '${field.name}' is a boolean: use = or !=.`, node.span)
    }
    if (value.kind === 'literal' && field.type === 'string' && hasWildcard(value)) {
      if (op !== '=' && op !== '!=') return this.#issue('unsupported-operator', 'A * wildcard works with = and != only.', node.span, 'Escape a literal star as \\* inside quotes.')
      return { kind: 'like', field, pattern: likePattern(value, false), caseInsensitive: false, negated: op === '!=' }
    }
    if (isEnum(field) && op !== '=' && op !== '!=') {
      return this.#issue('unsupported-operator', `Field '${field.name}' is an enum: use = or !=.`, node.span, `Several values: in(${field.name}, a, b).`)
    }
    const typed = this.#value(field, value)
    return typed === undefined ? undefined : { kind: 'compare', field, op: (op === '!=' ? '<>' : op) as SqlComparator, value: typed }
  }

  /** A comparison at a key path inside a json field. */
  #atPath (field: FieldModel, path: readonly string[], op: Comparator, value: Value, at: Span): CheckedFilter | undefined {
    const test = jsonTest(op, value, at)
    if ('code' in test) return this.#issue(test.code, test.message, test.span, test.hint)
    return { kind: 'json-path', field, path, test }
  }

  /** `:` — presence with `*`, contains for text, key existence for json, equality otherwise (enums too). */
  #has (field: FieldModel, value: Value): CheckedFilter | undefined {
    if (value.kind === 'literal' && !value.quoted && value.text === '*') return { kind: 'null', field, negated: true }
    if (value.kind === 'literal' && field.type === 'string' && !isEnum(field)) {
      return { kind: 'like', field, pattern: likePattern(value, true), caseInsensitive: true, negated: false }
    }
    if (field.type === 'json') {
      if (value.kind !== 'literal') return this.#issue('type-mismatch', 'field:key needs a key name.', value.span)
      return { kind: 'has-key', field, key: literalText(value) }
    }
    const typed = this.#value(field, value)
    return typed === undefined ? undefined : { kind: 'compare', field, op: '=', value: typed }
  }

  #search (value: Value, at: Span): CheckedFilter | undefined {
    if (value.kind !== 'literal') return this.#issue('wrong-arguments', 'search() takes text.', value.span)
    if (this.model.searchable.length === 0) {
      return this.#issue('not-searchable', `${this.model.resource} has no fields you can search.`, at, 'Filter on a field instead: field = value.')
    }
    if (literalText(value).length > MAX_PATTERN) return this.#issue('too-long', `Search text is limited to ${MAX_PATTERN} characters.`, value.span)
    return { kind: 'search', fields: this.model.searchable, pattern: likePattern(value, true) }
  }

  #call (call: Call): CheckedFilter | undefined {
    const name = call.name.text
    const arity = (min: number, max: number): boolean => {
      if (call.args.length >= min && call.args.length <= max) return true
      const takes = min === max ? String(min) : call.args.length > max ? `at most ${max}` : `${min} or more`
      this.#issue('wrong-arguments', `${name}() takes ${takes} argument${max === 1 ? '' : 's'}.`, call.span)
      return false
    }
    const textArg = (index: number): string | undefined => {
      const arg = call.args[index]
      if (arg?.kind !== 'literal') return this.#issue('wrong-arguments', `Argument ${index + 1} of ${name}() must be text.`, arg?.span ?? call.span)
      return literalText(arg)
    }
    const stringField = (arg: { field: FieldModel, path: readonly string[], via: readonly PathHop[] } | undefined): { field: FieldModel, via: readonly PathHop[] } | undefined => {
      if (arg === undefined || (arg.field.type === 'string' && arg.path.length === 0)) return arg
      return this.#issue('type-mismatch', `${name}() works on text fields, and '${arg.field.name}' is ${aType(arg.field.type)}.`, call.args[0]!.span)
    }
    switch (name) {
      case 'search':
        return arity(1, 1) ? this.#search(call.args[0]!, call.span) : undefined
      case 'isNull': {
        if (!arity(1, 1)) return undefined
        const arg = this.#fieldArg(call, 0)
        if (arg === undefined) return undefined
        const { field, path, via } = arg
        return this.#through(via, path.length === 0 ? { kind: 'null', field, negated: false } : { kind: 'json-path', field, path, test: { kind: 'null', negated: false } })
      }
      case 'in': {
        if (!arity(2, 1000)) return undefined
        const arg = this.#fieldArg(call, 0)
        if (arg === undefined) return undefined
        const { field, path, via } = arg
        // At a json path, one of the values is an OR of equalities, each typed by its literal's form.
        if (path.length > 0) {
          const children = call.args.slice(1).map((value) => this.#atPath(field, path, '=', value, value.span))
          return children.every((c) => c !== undefined) ? this.#through(via, { kind: 'or', children: children as CheckedFilter[] }) : undefined
        }
        if (field.type === 'json') return this.#issue('unsupported-operator', `Field '${field.name}' is json: it cannot be compared.`, call.span, TYPE_HINTS.json)
        const values = call.args.slice(1).map((value) => this.#value(field, value))
        return values.every((v) => v !== undefined) ? this.#through(via, { kind: 'in', field, values: values as TypedValue[] }) : undefined
      }
      case 'similar': {
        if (!arity(2, 2)) return undefined
        const arg = stringField(this.#fieldArg(call, 0))
        const text = textArg(1)
        if (arg === undefined || text === undefined) return undefined
        if (!this.model.trigram) return this.#issue('unavailable', 'similar() needs the pg_trgm extension, which this database does not have.', call.name.span, 'An administrator can run: CREATE EXTENSION pg_trgm')
        return this.#through(arg.via, { kind: 'similar', field: arg.field, text })
      }
      case 'regex': {
        if (!arity(2, 2)) return undefined
        const arg = stringField(this.#fieldArg(call, 0))
        const pattern = textArg(1)
        if (arg === undefined || pattern === undefined) return undefined
        if (pattern.length > MAX_PATTERN) return this.#issue('too-long', `A pattern is limited to ${MAX_PATTERN} characters.`, call.args[1]!.span)
        try {
          // JavaScript's parser catches most errors (unbalanced groups, nothing to repeat, bad
          // bounds); pgRegexValid what only PostgreSQL refuses.
          void new RegExp(pattern)
          if (!pgRegexValid(pattern)) throw new SyntaxError('PostgreSQL refuses it')
        } catch {
          return this.#issue('invalid-regex', 'The regular expression is not valid.', call.args[1]!.span)
        }
        return this.#through(arg.via, { kind: 'regex', field: arg.field, pattern })
      }
      case 'now':
        return this.#issue('misplaced-function', 'now() is a value: compare a field with it.', call.span, 'placed_at > now() - 7d')
      default: {
        const suggestion = nearest(name, FUNCTIONS)
        return this.#issue('unknown-function', `There is no function '${name}'.`, call.name.span,
          suggestion !== undefined ? `Did you mean ${suggestion}()?` : `Functions: ${FUNCTIONS.map((f) => f + '()').join(', ')}.`)
      }
    }
  }

  check (node: FilterNode): CheckedFilter | undefined {
    switch (node.kind) {
      case 'and':
      case 'or': {
        const children = node.children.map((c) => this.check(c))
        return children.every((c) => c !== undefined) ? { kind: node.kind, children: children as CheckedFilter[] } : undefined
      }
      case 'not': {
        const child = this.check(node.child)
        return child === undefined ? undefined : { kind: 'not', child }
      }
      case 'compare': return this.#compare(node)
      case 'call': return this.#call(node)
      case 'term': return this.#search(node.value, node.span)
      case 'member': {
        const member = this.#member(node.field, node.path)
        if (member === undefined) return undefined
        const written = [...member.via.map((r) => r.relation.name), member.field.name].join('.')
        const example = member.path.length > 0 || member.field.type === 'json' ? `${written}.key` : written
        return this.#issue('missing-comparison', 'A field path needs a comparison.', node.span,
          `Compare it, as in ${example} = "text", or test it: ${example}:*. To search for text with a dot, quote it: "v1.2".`)
      }
    }
  }
}

/** How many values a condition binds in SQL. */
function valuesOf (condition: FilterCondition): number {
  switch (condition.kind) {
    case 'null': return 0
    case 'in': return condition.values.length
    case 'search': return condition.fields.length
    // The path, and at most a value and its JSON type.
    case 'json-path': return 3
    // The condition's own and the tenant; the target's row filter is the server's, attached later.
    case 'related': return 1 + conditionsOf(condition.condition).reduce((n, c) => n + valuesOf(c), 0)
    default: return 1
  }
}

export type CheckResult = { readonly ok: true, readonly filter: CheckedFilter | undefined } | { readonly ok: false, readonly issues: readonly QueryIssue[] }

/**
 * `graph`: the relations a path may follow from each resource (none by default); `scope`: the rows
 * a related condition reads, the caller's once the plan attaches them, or a rule's rows as stored.
 */
export function checkFilter (node: FilterNode | undefined, model: QueryModel, graph: RelationGraph = NO_RELATIONS, scope: RelatedScope = UNATTACHED): CheckResult {
  if (node === undefined) return { ok: true, filter: undefined }
  const checker = new Checker(model, graph, scope)
  const filter = checker.check(node)
  if (checker.issues.length > 0 || filter === undefined) return { ok: false, issues: checker.issues }
  const conditions = conditionsOf(filter)
  if (conditions.reduce((n, c) => n + valuesOf(c), 0) > MAX_VALUES) {
    return { ok: false, issues: [{ code: 'too-complex', message: `The filter needs more than ${MAX_VALUES} values.`, hint: 'Split the request into several, each with fewer values.', span: node.span }] }
  }
  if (conditions.filter((c) => c.kind === 'search').length > MAX_SEARCH_TERMS) {
    return { ok: false, issues: [{ code: 'too-complex', message: `The filter has more than ${MAX_SEARCH_TERMS} search terms.`, hint: 'Search for a phrase in quotes: "green tea".', span: node.span }] }
  }
  return { ok: true, filter }
}
