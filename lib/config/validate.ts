// Raw config → checked config. Startup errors name the bad key by its path and suggest the
// nearest known name, so a typo fails fast instead of silently falling back to a default.
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { ConfigSchema, type Config } from './schema.js'
import { nearest } from '../text.js'

export class ConfigError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

function displayPath (pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  return parts.length === 0 ? 'config' : 'config.' + parts.join('.')
}

function schemaAt (root: TSchema, pointer: string): TSchema | undefined {
  let schema: TSchema | undefined = root
  for (const part of pointer.split('/').slice(1)) {
    if (schema === undefined) return undefined
    if (schema.properties?.[part] !== undefined) schema = schema.properties[part]
    else if (schema.patternProperties !== undefined) schema = Object.values(schema.patternProperties)[0] as TSchema
    else if (schema.items !== undefined) schema = schema.items as TSchema
    else return undefined
  }
  return schema
}

function unknownKeys (value: unknown, schema: TSchema | undefined): string[] {
  if (schema?.properties === undefined || value === null || typeof value !== 'object') return []
  return Object.keys(value).filter((k) => !(k in schema.properties))
}

/** Checks a raw config object against the schema; throws one ConfigError naming every bad key. */
export function validateConfig (raw: unknown): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError('config must be an object (the default export of the config file)')
  }
  const messages: string[] = []
  const seen = new Set<string>()
  for (const error of Value.Errors(ConfigSchema, raw)) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      const schema = schemaAt(ConfigSchema, error.path)
      for (const key of unknownKeys(error.value, schema)) {
        const path = `${displayPath(error.path)}.${key}`
        if (seen.has(path)) continue
        seen.add(path)
        const suggestion = nearest(key, Object.keys(schema?.properties ?? {}))
        messages.push(`${path}: unknown key${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}`)
      }
      continue
    }
    const path = displayPath(error.path)
    if (seen.has(path)) continue
    seen.add(path)
    messages.push(`${path}: ${error.message.toLowerCase()}`)
  }
  if (messages.length > 0) throw new ConfigError(`invalid config: ${messages.join('; ')}`)
  return raw as Config
}
