// Keys in URLs: a composite key is its parts joined by `,`, each percent-encoded. Parts are checked
// against their field types here, so a malformed key is a 400 before any query runs.
import { problem, type Problem } from '../problems.js'
import type { ResourceModel } from './types.js'
import { isValueText } from './values.js'

function invalidKey (model: ResourceModel, detail: string): Problem {
  const shape = model.key.map((f) => `<${f.name}>`).join(',')
  return problem('invalid-key', `${detail} A ${model.name} key is ${shape}${model.key.length > 1 ? ', each part percent-encoded' : ''}.`)
}

/** The key parts of a raw (still percent-encoded) URL segment, checked against the key fields. */
export function parseKey (model: ResourceModel, raw: string): string[] {
  const pieces = raw.split(',')
  if (pieces.length !== model.key.length) {
    throw invalidKey(model, `The key has ${pieces.length} part${pieces.length === 1 ? '' : 's'}, expected ${model.key.length}.`)
  }
  return pieces.map((piece, i) => {
    const field = model.key[i]!
    let part: string
    try {
      part = decodeURIComponent(piece)
    } catch {
      throw invalidKey(model, `Key part ${i + 1} is not valid percent-encoding.`)
    }
    if (part === '' || !isValueText(field, part)) {
      throw invalidKey(model, `Key part ${i + 1} (${field.name}) is not a valid ${field.type}.`)
    }
    return part
  })
}

/** The URL text of a record's key. */
export function keyText (model: ResourceModel, record: Readonly<Record<string, unknown>>): string {
  return model.key.map((f) => encodeURIComponent(String(record[f.name]))).join(',')
}
