// The fields a caller reads and writes. Until per-caller access narrows them, every field is
// readable (the tenant column is only a field when listed) and every non-read-only one writable.
import type { CallerFields } from '../write/pipeline.js'
import type { ResourceModel } from './types.js'

export function callerFields (model: ResourceModel): CallerFields {
  const readable = [...model.fields.values()]
  return { readable, writable: readable.filter((f) => !f.readOnly) }
}
