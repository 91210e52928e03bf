// Keys in URLs: a composite key is its parts joined by `,`, each percent-encoded. Parts are checked
// against their field types here, so a malformed key is a 400 before any query runs.
import { problem, type Problem } from '../problems.js'
import type { ResourceModel } from './types.js'
import { isValueText } from './values.js'
import { columnLimitBroken } from './column-limits.js'

function invalidKey (model: ResourceModel, detail: string): Problem {
  const shape = model.key.map((f) => `<${f.name}>`).join(',')
  return problem('invalid-key', `${detail} A ${model.name} key is ${shape}${model.key.length > 1 ? ', each part percent-encoded' : ''}.`)
}

function checkedParts (model: ResourceModel, parts: readonly string[]): string[] {
  if (parts.length !== model.key.length) {
    throw invalidKey(model, `The key has ${parts.length} part${parts.length === 1 ? '' : 's'}, expected ${model.key.length}.`)
  }
  parts.forEach((part, i) => {
    const field = model.key[i]!
    if (part === '' || !isValueText(field, part)) {
      throw invalidKey(model, `Key part ${i + 1} (${field.name}) is not a valid ${field.type}.`)
    }
    // A key its column cannot hold names no record, and PostgreSQL would refuse to compare it.
    const broken = columnLimitBroken(field.columnLimit, part)
    if (broken !== undefined) throw invalidKey(model, `Key part ${i + 1} (${field.name}) ${broken}.`)
  })
  return [...parts]
}

/** The key parts of a raw (still percent-encoded) URL segment, checked against the key fields. */
export function parseKey (model: ResourceModel, raw: string): string[] {
  return checkedParts(model, raw.split(',').map((piece, i) => {
    try {
      return decodeURIComponent(piece)
    } catch {
      throw invalidKey(model, `Key part ${i + 1} is not valid percent-encoding.`)
    }
  }))
}

/**
 * A key given as JSON (batch operations): its URL text, a number, or a list of parts (each text
 * or a number, not percent-encoded). Checked like a URL key.
 */
export function keyFromValue (model: ResourceModel, value: unknown): string[] {
  if (typeof value === 'string') return parseKey(model, value)
  if (typeof value === 'number' && Number.isFinite(value)) return checkedParts(model, [String(value)])
  if (Array.isArray(value) && value.every((part) => typeof part === 'string' || (typeof part === 'number' && Number.isFinite(part)))) {
    return checkedParts(model, value.map(String))
  }
  throw invalidKey(model, 'A key is its URL text, a number, or a list of its parts.')
}

/** The key parts of a record as read (each field's value as text). */
export function keyParts (model: ResourceModel, record: Readonly<Record<string, unknown>>): string[] {
  return model.key.map((f) => String(record[f.name]))
}

/** Key parts as URL text: each percent-encoded, joined by `,`. */
export function partsText (parts: readonly string[]): string {
  return parts.map(encodeURIComponent).join(',')
}

/** The URL text of a record's key. */
export function keyText (model: ResourceModel, record: Readonly<Record<string, unknown>>): string {
  return partsText(keyParts(model, record))
}
