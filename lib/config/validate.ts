// Raw config → checked config. Startup errors name the bad key by its path and suggest the
// nearest known name, so a typo fails fast instead of silently falling back to a default.
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { ConfigSchema, type Config } from './schema.js'
import { didYouMean } from '../text.js'
import { literalsOf, sourceText, typeText } from './schema-text.js'

export class ConfigError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

function pointerParts (pointer: string): string[] {
  return pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function displayPath (pointer: string): string {
  const parts = pointerParts(pointer)
  return parts.length === 0 ? 'config' : 'config.' + parts.join('.')
}

/** TypeBox says only "expected union value": name the values or shapes the key takes instead. */
function unionMessage (schema: TSchema, value: unknown): string {
  const literals = literalsOf(schema)
  if (literals === undefined) return `expected ${typeText(schema)}`
  const hint = typeof value === 'string' ? didYouMean(value, literals.filter((l) => typeof l === 'string')) : ''
  return `must be one of ${literals.map(sourceText).join(', ')}${hint}`
}

/**
 * The one object shape of a union whose required keys a value has all of (a to-many relation has
 * `resource` and `by`), if just one: its errors say what is wrong inside, where the union's would
 * only list the shapes.
 */
function chosenShape (schema: TSchema, value: unknown): TSchema | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const shapes = ((schema as { anyOf?: TSchema[] }).anyOf ?? []).filter((s) => s.type === 'object' && (s.required as string[] | undefined ?? []).length > 0)
  const fitting = shapes.filter((s) => (s.required as string[]).every((key) => key in value))
  return fitting.length === 1 ? fitting[0] : undefined
}

function describeErrors (schema: TSchema, value: unknown, base: string, messages: string[], seen: Set<string>): void {
  for (const error of Value.Errors(schema, value)) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      // The error's path ends with the unknown key; its schema is the object that refused it.
      const path = displayPath(base + error.path)
      if (seen.has(path)) continue
      seen.add(path)
      const key = pointerParts(error.path).at(-1) ?? ''
      messages.push(`${path}: unknown key${didYouMean(key, Object.keys(error.schema.properties ?? {}))}`)
      continue
    }
    const path = displayPath(base + error.path)
    if (seen.has(path)) continue
    seen.add(path)
    const shape = error.type === ValueErrorType.Union ? chosenShape(error.schema, error.value) : undefined
    if (shape !== undefined) {
      describeErrors(shape, error.value, base + error.path, messages, seen)
      continue
    }
    messages.push(`${path}: ${error.type === ValueErrorType.Union ? unionMessage(error.schema, error.value) : error.message.toLowerCase()}`)
  }
}

/** Checks a raw config object against the schema; throws one ConfigError naming every bad key. */
export function validateConfig (raw: unknown): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError('config must be an object (the default export of the config file)')
  }
  const messages: string[] = []
  describeErrors(ConfigSchema, raw, '', messages, new Set())
  if (messages.length > 0) throw new ConfigError(`invalid config: ${messages.join('; ')}`)
  return raw as Config
}
