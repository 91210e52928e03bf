// A checked filter: fields resolved against the caller's model, values typed. This is what the SQL
// compiler takes; nothing in it is raw text from the request except bound values.
import type { FieldModel, RelationModel, ResourceModel } from '../../model/types.js'

export type SqlComparator = '=' | '<>' | '<' | '<=' | '>' | '>='

export type TypedValue =
  | { readonly kind: 'value', readonly value: string | number | boolean }
  | { readonly kind: 'now', readonly offsetMs: number }

export type CheckedFilter =
  | { readonly kind: 'and' | 'or', readonly children: readonly CheckedFilter[] }
  | { readonly kind: 'not', readonly child: CheckedFilter }
  | { readonly kind: 'compare', readonly field: FieldModel, readonly op: SqlComparator, readonly value: TypedValue }
  | { readonly kind: 'null', readonly field: FieldModel, readonly negated: boolean }
  /** LIKE/ILIKE with an escaped pattern: wildcards (`tea*`) and `:` (contains). */
  | { readonly kind: 'like', readonly field: FieldModel, readonly pattern: string, readonly caseInsensitive: boolean, readonly negated: boolean }
  | { readonly kind: 'in', readonly field: FieldModel, readonly values: readonly TypedValue[] }
  /** Any of the fields contains the text, case-insensitively. */
  | { readonly kind: 'search', readonly fields: readonly FieldModel[], readonly pattern: string }
  | { readonly kind: 'similar', readonly field: FieldModel, readonly text: string }
  | { readonly kind: 'regex', readonly field: FieldModel, readonly pattern: string }
  | { readonly kind: 'has-key', readonly field: FieldModel, readonly key: string }
  /** A test of the value at a key path inside a json field (`meta.size > 40`): keys and values are bound. */
  | { readonly kind: 'json-path', readonly field: FieldModel, readonly path: readonly string[], readonly test: JsonTest }
  /**
   * A condition on the rows a relation leads to (`customer.country = "DE"`, `lines.sku:"X"`): true
   * when SOME row of the target within `scope` is linked and passes `condition`, which is checked
   * against the target's fields.
   */
  | { readonly kind: 'related', readonly relation: RelationModel, readonly target: ResourceModel, readonly scope: RelatedScope, readonly condition: CheckedFilter }

/**
 * Which rows of a relation's target a related condition or a path reads. `caller`: the rows the
 * caller may read there (their tenant and the read rule's row filter; soft-deleted rows never), for
 * what a request names. `stored`: the rows as stored, whoever may read them, for what a rule
 * names (the rule is the server's policy, not the caller's view). `unattached`: a request's path as
 * checked, before the plan gives each hop the caller's rows there; it is never compiled.
 */
export type RelatedScope =
  | { readonly kind: 'caller', readonly tenant: string | undefined, readonly rows: CheckedFilter | undefined, readonly everyTenant?: boolean | undefined }
  | { readonly kind: 'stored' }
  | { readonly kind: 'unattached' }

export const UNATTACHED: RelatedScope = Object.freeze({ kind: 'unattached' })
export const AS_STORED: RelatedScope = Object.freeze({ kind: 'stored' })

/** What a json-path condition tests of the value at its path; no value there makes each false (or NULL). */
export type JsonTest =
  /** Compared as JSON of the literal's own type: a bare number is a number, true and false booleans, other text a string. */
  | { readonly kind: 'compare', readonly op: SqlComparator, readonly type: 'string' | 'number' | 'boolean', readonly value: string | boolean }
  /** The value's text matches a LIKE pattern (a wildcard comparison). */
  | { readonly kind: 'like', readonly pattern: string, readonly negated: boolean }
  /** No value at the path or JSON null (`= null`); `negated`: a value other than JSON null. */
  | { readonly kind: 'null', readonly negated: boolean }
  /** A value at the path, JSON null included (`:*`). */
  | { readonly kind: 'present' }
  /** The value there holds the key or the string element, or is that string (`:`, as jsonb's `?`). */
  | { readonly kind: 'has', readonly key: string }

/** What a caller may read, filter, sort and search: the restricted model the checkers are given. */
export interface QueryModel {
  readonly resource: string
  /** Every field the caller reads: what a `fields` path may name. */
  readonly readable: ReadonlyMap<string, FieldModel>
  readonly filterable: ReadonlyMap<string, FieldModel>
  readonly sortable: ReadonlyMap<string, FieldModel>
  readonly searchable: readonly FieldModel[]
  /** pg_trgm is installed, so similar() can run. */
  readonly trigram: boolean
  /** Identifies this model among callers' models: checks of the same text under it are the same. */
  readonly cacheKey: string
}

/** A condition of a filter: anything but AND, OR and NOT. */
export type FilterCondition = Exclude<CheckedFilter, { kind: 'and' | 'or' | 'not' }>

/** A filter's conditions, in order, without the AND, OR and NOT around them. */
export function conditionsOf (filter: CheckedFilter, into: FilterCondition[] = []): FilterCondition[] {
  switch (filter.kind) {
    case 'and':
    case 'or': for (const child of filter.children) conditionsOf(child, into); break
    case 'not': conditionsOf(filter.child, into); break
    default: into.push(filter)
  }
  return into
}

/** Every field of its own resource a filter reads: a related condition reads the field that links the two. */
export function fieldsOf (filter: CheckedFilter): Set<FieldModel> {
  return new Set(conditionsOf(filter).flatMap((c) => {
    if (c.kind === 'search') return c.fields
    if (c.kind === 'related') return c.relation.kind === 'one' ? [c.relation.field] : []
    return [c.field]
  }))
}

/** Whether a filter follows a relation: what it matches then depends on the caller's rows of another resource too. */
export function traverses (filter: CheckedFilter | undefined): boolean {
  return filter !== undefined && conditionsOf(filter).some((c) => c.kind === 'related')
}

/**
 * A filter's structure without its values: two filters with the same structure compile to the
 * same SQL text with other bound values (json key paths included, as the SQL names them). It
 * identifies a filter shape where compiling the SQL to find out would cost more.
 */
export function filterStructure (filter: CheckedFilter): string {
  switch (filter.kind) {
    case 'and':
    case 'or': return `${filter.kind}(${filter.children.map(filterStructure).join(',')})`
    case 'not': return `not(${filterStructure(filter.child)})`
    case 'compare': return `${filter.field.name}${filter.op}${filter.value.kind}`
    case 'null': return `${filter.field.name} null ${filter.negated}`
    case 'like': return `${filter.field.name} like ${filter.caseInsensitive} ${filter.negated}`
    case 'in': return `${filter.field.name} in ${filter.values.map((v) => v.kind).join(' ')}`
    case 'search': return `search ${filter.fields.map((f) => f.name).join(' ')}`
    case 'similar':
    case 'regex':
    case 'has-key': return `${filter.field.name} ${filter.kind}`
    case 'related': return `${filter.relation.name}[${scopeStructure(filter.target, filter.scope)}](${filterStructure(filter.condition)})`
    case 'json-path': {
      const { test } = filter
      const detail = test.kind === 'compare' ? `${test.op} ${test.type}` : test.kind === 'like' || test.kind === 'null' ? String(test.negated) : ''
      return `${filter.field.name} ${JSON.stringify(filter.path)} ${test.kind} ${detail}`
    }
  }
}

/** A related scope's structure: which conditions it adds to the target's rows, without their values. */
export function scopeStructure (target: ResourceModel, scope: RelatedScope): string {
  if (scope.kind !== 'caller') return scope.kind
  return `${target.tenancy !== undefined && scope.everyTenant !== true} ${scope.rows === undefined ? '' : filterStructure(scope.rows)}`
}
