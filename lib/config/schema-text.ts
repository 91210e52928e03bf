// Config schemas in words, for startup messages ("expected boolean | string[]") and the generated
// reference (docs/configuration.md): one wording, so the two never disagree.
import { Kind, type TSchema } from '@sinclair/typebox'

type Schema = TSchema & {
  const?: unknown, anyOf?: TSchema[], items?: TSchema | TSchema[], properties?: Record<string, TSchema>,
  required?: string[], patternProperties?: Record<string, TSchema>,
}

/** An object key as TypeScript source: quoted only when it is not an identifier. */
export function keySource (key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : sourceText(key)
}

/** A value as TypeScript source: `'text'`, `600_000`, `{ role: 'admin' }`, on one line. */
export function sourceText (value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= 10_000 ? String(value).replace(/\B(?=(\d{3})+$)/g, '_') : String(value)
  if (Array.isArray(value)) return `[${value.map(sourceText).join(', ')}]`
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${keySource(k)}: ${sourceText(v)}`)
    return members.length === 0 ? '{}' : `{ ${members.join(', ')} }`
  }
  return String(value)
}

/** The literals of a union of literals (an enumeration), or undefined for any other schema. */
export function literalsOf (schema: TSchema): unknown[] | undefined {
  const members = (schema as Schema).anyOf
  if (schema[Kind] !== 'Union' || members === undefined || !members.every((m) => m[Kind] === 'Literal')) return undefined
  return members.map((m) => (m as Schema).const)
}

/**
 * The shape of a schema in TypeScript-like words: `boolean | string[] | function | { filter }`.
 * `named` may give an object (or enumeration) a name of its own, such as a link to its section.
 */
export function typeText (schema: TSchema, named: (schema: TSchema) => string | undefined = () => undefined): string {
  const own = named(schema)
  if (own !== undefined) return own
  const s = schema as Schema
  const inner = (child: TSchema): string => typeText(child, named)
  switch (schema[Kind]) {
    case 'Literal': return sourceText(s.const)
    case 'Union': return (s.anyOf ?? []).map(inner).join(' | ')
    case 'Array': {
      const item = inner(s.items as TSchema)
      return item.includes(' | ') ? `(${item})[]` : `${item}[]`
    }
    case 'Tuple': return `[${(s.items as TSchema[] | undefined ?? []).map(inner).join(', ')}]`
    case 'Record': return `{ [${(s as { keyName?: string }).keyName ?? 'name'}]: ${inner(Object.values(s.patternProperties ?? {})[0] as TSchema)} }`
    case 'Object': {
      const required = new Set(s.required ?? [])
      return `{ ${Object.keys(s.properties ?? {}).map((key) => required.has(key) ? key : `${key}?`).join(', ')} }`
    }
    case 'Function': return 'function'
    case 'Any':
    case 'Unknown': return 'any'
    default: return String(s.type ?? schema[Kind]).toLowerCase()
  }
}

/** The bounds a schema adds to its type, in words ("at least 16 characters"), or ''. */
export function boundsText (schema: TSchema): string {
  const s = schema as TSchema & { minimum?: number, maximum?: number, minLength?: number, maxLength?: number, pattern?: string, minItems?: number }
  const parts: string[] = []
  if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`${sourceText(s.minimum)} to ${sourceText(s.maximum)}`)
  else if (s.minimum !== undefined) parts.push(`at least ${sourceText(s.minimum)}`)
  else if (s.maximum !== undefined) parts.push(`at most ${sourceText(s.maximum)}`)
  if (s.minLength !== undefined) parts.push(`at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}`)
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`)
  if (s.pattern !== undefined) parts.push(`matching \`${s.pattern}\``)
  if (s.minItems !== undefined) parts.push(s.minItems === 1 ? 'not empty' : `at least ${s.minItems} items`)
  return parts.join(', ')
}
