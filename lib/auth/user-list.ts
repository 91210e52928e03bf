// A page of users for the admin plugin's `list-users`, with better-auth 1.7's query options:
// `searchValue` / `searchField` (email, name) / `searchOperator` (contains, starts_with, ends_with),
// `filterField` / `filterValue` / `filterOperator` (eq, ne, lt, lte, gt, gte, in, not_in, contains,
// starts_with, ends_with), `sortBy` / `sortDirection`, `limit` and `offset`. Field names are the
// user record's (camelCase); values are bound parameters; a bad option is a UserListError naming it.
import { sql, type Sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import type { AuthTables, UserRow } from './store/migrate.js'

export const DEFAULT_LIST_LIMIT = 100
export const MAX_LIST_LIMIT = 500

export class UserListError extends Error {
  constructor (readonly parameter: string, message: string) {
    super(message)
    this.name = 'UserListError'
  }
}

type FieldType = 'text' | 'boolean' | 'timestamp'

const FIELDS: Readonly<Record<string, { readonly column: string, readonly type: FieldType }>> = {
  id: { column: 'id', type: 'text' },
  email: { column: 'email', type: 'text' },
  name: { column: 'name', type: 'text' },
  role: { column: 'role', type: 'text' },
  banned: { column: 'banned', type: 'boolean' },
  banReason: { column: 'ban_reason', type: 'text' },
  emailVerified: { column: 'email_verified', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'timestamp' },
  updatedAt: { column: 'updated_at', type: 'timestamp' },
}
const SEARCH_FIELDS = ['email', 'name']
const SEARCH_OPERATORS = ['contains', 'starts_with', 'ends_with']
const COMPARISONS = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const
const FILTER_OPERATORS = [...Object.keys(COMPARISONS), 'in', 'not_in', ...SEARCH_OPERATORS]

export interface UserPage {
  readonly users: UserRow[]
  readonly total: number
  readonly limit: number
  readonly offset: number
}

type QueryValue = string | readonly string[] | undefined

function single (query: Readonly<Record<string, QueryValue>>, name: string): string | undefined {
  const value = query[name]
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string') throw new UserListError(name, `${name} must be given once`)
  return withoutNul(name, value)
}

/** PostgreSQL text holds no NUL: a value with one could match nothing, and is refused by name. */
function withoutNul (name: string, value: string): string {
  if (value.includes('\u0000')) throw new UserListError(name, `${name} must not contain NUL characters`)
  return value
}

function oneOf (query: Readonly<Record<string, QueryValue>>, name: string, choices: readonly string[], fallback: string): string {
  const value = single(query, name) ?? fallback
  if (!choices.includes(value)) throw new UserListError(name, `${name} must be one of ${choices.join(', ')}`)
  return value
}

function count (query: Readonly<Record<string, QueryValue>>, name: string, fallback: number): number {
  const value = single(query, name)
  if (value === undefined) return fallback
  if (!/^\d{1,9}$/.test(value)) throw new UserListError(name, `${name} must be a whole number`)
  return Number(value)
}

function typed (name: string, type: FieldType, value: string): unknown {
  if (type === 'boolean') {
    if (value !== 'true' && value !== 'false') throw new UserListError(name, `${name} must be true or false for this field`)
    return value === 'true'
  }
  if (type === 'timestamp' && Number.isNaN(Date.parse(value))) throw new UserListError(name, `${name} must be an ISO 8601 timestamp for this field`)
  return withoutNul(name, value)
}

function likePattern (operator: string, value: string): string {
  const escaped = value.replace(/[\\%_]/g, (m) => '\\' + m)
  return operator === 'starts_with' ? `${escaped}%` : operator === 'ends_with' ? `%${escaped}` : `%${escaped}%`
}

function searchCondition (query: Readonly<Record<string, QueryValue>>): Sql | undefined {
  const value = single(query, 'searchValue')
  if (value === undefined) return undefined
  const field = oneOf(query, 'searchField', SEARCH_FIELDS, 'email')
  const operator = oneOf(query, 'searchOperator', SEARCH_OPERATORS, 'contains')
  return sql`${sql.ident(FIELDS[field]!.column)} ${sql.keyword('ILIKE')} ${likePattern(operator, value)}`
}

function filterCondition (query: Readonly<Record<string, QueryValue>>): Sql | undefined {
  const raw = query.filterValue
  if (raw === undefined) return undefined
  const name = oneOf(query, 'filterField', Object.keys(FIELDS), 'email')
  const { column, type } = FIELDS[name]!
  const operator = oneOf(query, 'filterOperator', FILTER_OPERATORS, 'eq')
  const target = sql.ident(column)
  if (operator === 'in' || operator === 'not_in') {
    // Repeated `filterValue`s, or one comma separated value.
    const values = (typeof raw === 'string' ? raw.split(',') : raw).map((v) => typed('filterValue', type, v.trim()))
    const member = sql`${target} = ANY (${values})`
    return operator === 'in' ? member : sql`NOT (${member})`
  }
  if (typeof raw !== 'string') throw new UserListError('filterValue', `filterValue must be given once for ${operator}`)
  if (SEARCH_OPERATORS.includes(operator)) {
    if (type !== 'text') throw new UserListError('filterOperator', `${operator} applies only to text fields`)
    return sql`${target} ${sql.keyword('LIKE')} ${likePattern(operator, raw)}`
  }
  return sql`${target} ${sql.keyword(COMPARISONS[operator as keyof typeof COMPARISONS])} ${typed('filterValue', type, raw)}`
}

/** The page of users the query asks for, with the total that match it. */
export async function listUserPage (db: Queryable, tables: AuthTables, query: Readonly<Record<string, QueryValue>>): Promise<UserPage> {
  const conditions = [searchCondition(query), filterCondition(query)].filter((c): c is Sql => c !== undefined)
  const where = conditions.length === 0 ? sql.empty : sql`WHERE ${sql.join(conditions, sql` AND `)}`
  const sortBy = oneOf(query, 'sortBy', Object.keys(FIELDS), 'createdAt')
  const direction = sql.keyword(oneOf(query, 'sortDirection', ['asc', 'desc'], 'asc') === 'desc' ? 'DESC' : 'ASC')
  // Past 500 a page is coerced to 500, as resource lists are (AIP-158).
  const limit = Math.min(count(query, 'limit', DEFAULT_LIST_LIMIT), MAX_LIST_LIMIT)
  if (limit === 0) throw new UserListError('limit', 'limit must be at least 1')
  const offset = count(query, 'offset', 0)
  const users = await rows<UserRow>(db, sql`SELECT * FROM ${tables.user} ${where}
    ORDER BY ${sql.ident(FIELDS[sortBy]!.column)} ${direction}, ${sql.ident('id')} ${direction} LIMIT ${limit} OFFSET ${offset}`)
  const [counted] = await rows<{ total: number }>(db, sql`SELECT count(*)::int AS total FROM ${tables.user} ${where}`)
  return { users, total: counted!.total, limit, offset }
}
