// The one SQL builder: tagged templates → `{ text, values }`. Every interpolated value becomes a
// `$n` parameter; identifiers go through `ident()` and are always quoted; keywords come from a
// closed union. There is deliberately no raw-string escape hatch.

export interface SqlQuery {
  readonly text: string
  readonly values: unknown[]
}

const kFragment = Symbol('tablegate.sql')

export interface Sql {
  readonly [kFragment]: true
  readonly strings: readonly string[]
  readonly args: readonly unknown[]
}

function fragment (strings: readonly string[], args: readonly unknown[]): Sql {
  return { [kFragment]: true, strings, args }
}

function isSql (value: unknown): value is Sql {
  return typeof value === 'object' && value !== null && kFragment in value
}

/** `sql\`SELECT ${a}\`` → a fragment; nested fragments are inlined, anything else is a parameter. */
export function sql (strings: TemplateStringsArray, ...args: unknown[]): Sql {
  return fragment(strings, args)
}

export function quoteIdent (name: string): string {
  if (name === '' || name.includes('\0')) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`)
  return '"' + name.replace(/"/g, '""') + '"'
}

/** A quoted, optionally qualified identifier: `ident('auth', 'user')` → `"auth"."user"`. */
sql.ident = (...names: Array<string | undefined>): Sql =>
  fragment([names.filter((n): n is string => n !== undefined).map(quoteIdent).join('.')], [])

export type Keyword = 'ASC' | 'DESC' | 'NULLS FIRST' | 'NULLS LAST' | 'AND' | 'OR' | 'NOT' |
  '=' | '<>' | '<' | '<=' | '>' | '>=' | 'IS NULL' | 'IS NOT NULL' | 'LIKE' | 'ILIKE' | '~' | '~*'

sql.keyword = (keyword: Keyword): Sql => fragment([keyword], [])

/**
 * A non-negative integer written into the text, not bound: for LIMITs, whose values come from a
 * small set (page sizes, caps). PostgreSQL plans `LIMIT $n` as an unknown row count, so a
 * prepared statement with one never earns a generic plan and is planned again on every run.
 */
sql.int = (value: number): Sql => {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`sql.int: ${String(value)} is not a non-negative integer`)
  return fragment([String(value)], [])
}

// Made here, not assigned from a named constant: `sql.empty = empty` made TypeScript's declaration
// output `export { empty }` inside `namespace sql`, which hid ident, keyword and int from consumers.
sql.empty = fragment([''], [])
export const empty: Sql = sql.empty

/**
 * A value-free fragment compiled once into a single string, for pieces that repeat on every request
 * (a model's column list). Refuses a fragment that binds values, so nothing from a request can
 * ever be frozen into SQL text.
 */
sql.freeze = (part: Sql): Sql => {
  const { text, values } = compile(part)
  if (values.length > 0) throw new Error('sql.freeze: only value-free fragments can be frozen')
  return fragment([text], [])
}

sql.join = (parts: readonly Sql[], separator: Sql = sql`, `): Sql => {
  if (parts.length === 0) return empty
  const strings = ['']
  const args: unknown[] = []
  parts.forEach((part, i) => {
    if (i > 0) {
      args.push(separator)
      strings.push('')
    }
    args.push(part)
    strings.push('')
  })
  return fragment(strings, args)
}

/** Numbers the parameters of a fragment tree; the same fragment always compiles to the same text. */
export function compile (query: Sql): SqlQuery {
  const values: unknown[] = []
  let text = ''
  // Plain loops: this runs for every statement of every request.
  const walk = (node: Sql): void => {
    const { strings, args } = node
    for (let i = 0; i < strings.length; i++) {
      text += strings[i]
      if (i >= args.length) continue
      const arg = args[i]
      if (isSql(arg)) walk(arg)
      else {
        values.push(arg)
        text += '$' + values.length
      }
    }
  }
  walk(query)
  return { text, values }
}
