// References between the operations of a batch: `ref` on a create names the record; a later
// `{ "$ref": "r" }` stands for its key (as a key, a key part, or a value in data) and
// `{ "$ref": "r", "field": "f" }` for the value of a field the caller may read.
import type { WritePlan } from '../plan/types.js'
import { invalidOperation, type BatchOperation } from './batch-operations.js'

interface Named {
  /** The write that created the record: its resource and what the caller may read of it. */
  readonly plan: Pick<WritePlan, 'model' | 'readable'>
  /** The record as written (at least the caller's readable fields). */
  readonly row: Readonly<Record<string, unknown>>
  readonly key: readonly string[]
}

interface RefValue { readonly ref: string, readonly field: string | undefined }

function refOf (value: unknown): RefValue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('$ref' in value)) return undefined
  const { $ref: ref, field, ...rest } = value as Record<string, unknown>
  if (typeof ref !== 'string' || (field !== undefined && typeof field !== 'string') || Object.keys(rest).length > 0) return { ref: '', field: undefined }
  return { ref, field: field as string | undefined }
}

function isRecord (data: unknown): data is Record<string, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data)
}

/** The refs a create's data names at its top level. */
export function refsNamed (data: unknown): string[] {
  const named: string[] = []
  if (!isRecord(data)) return named
  for (const name in data) {
    const ref = refOf(data[name])
    if (ref !== undefined) named.push(ref.ref)
  }
  return named
}

export class Refs {
  /** Which operation names each ref. */
  readonly #definedAt = new Map<string, number>()
  readonly #records = new Map<string, Named>()

  constructor (operations: readonly BatchOperation[]) {
    for (const op of operations) {
      if (op.op !== 'create' || op.ref === undefined) continue
      const earlier = this.#definedAt.get(op.ref)
      if (earlier !== undefined) throw invalidOperation(op.index, 'ref', `ref '${op.ref}' already names the record of operation ${earlier}.`, { op: op.op, resource: op.resource })
      this.#definedAt.set(op.ref, op.index)
    }
  }

  define (ref: string, record: Named): void {
    this.#records.set(ref, record)
  }

  #record (op: BatchOperation, member: string, ref: RefValue): Named {
    const at = { op: op.op, resource: op.resource }
    if (ref.ref === '') throw invalidOperation(op.index, member, 'a reference is { "$ref": "<ref>" } or { "$ref": "<ref>", "field": "<field>" }.', at)
    const record = this.#records.get(ref.ref)
    if (record !== undefined) return record
    const definedAt = this.#definedAt.get(ref.ref)
    throw invalidOperation(op.index, member, definedAt === undefined
      ? `no create of this batch has ref '${ref.ref}'.`
      : `ref '${ref.ref}' is used before operation ${definedAt} creates it.`, at)
  }

  /** The value a reference stands for: a field's, or the record's (single-part) key. */
  #value (op: BatchOperation, member: string, ref: RefValue): unknown {
    const record = this.#record(op, member, ref)
    if (ref.field !== undefined) {
      // A field the caller cannot read is refused exactly like one that does not exist.
      if (!record.plan.readable.some((f) => f.name === ref.field)) {
        throw invalidOperation(op.index, member, `the record of ref '${ref.ref}' has no field '${ref.field}'.`, { op: op.op, resource: op.resource })
      }
      return record.row[ref.field]
    }
    const key = record.plan.model.key
    if (key.length !== 1) {
      throw invalidOperation(op.index, member, `ref '${ref.ref}' names a record with a key of ${key.length} parts: use it as a whole key, or name one field.`, { op: op.op, resource: op.resource })
    }
    // The key as the record carries it (an integer as a number, an int8 as text), as a client would send it.
    return record.row[key[0]!.name]
  }

  /** A key as the operation gave it, references resolved: a whole key, or key parts. */
  key (op: BatchOperation, value: unknown): unknown {
    const whole = refOf(value)
    if (whole !== undefined) return whole.field === undefined ? [...this.#record(op, 'key', whole).key] : [this.#value(op, 'key', whole)]
    if (Array.isArray(value)) return value.map((part) => { const ref = refOf(part); return ref === undefined ? part : this.#value(op, 'key', ref) })
    return value
  }

  /** `data` with each top-level reference replaced by its value. */
  data (op: BatchOperation, data: unknown): unknown {
    if (!isRecord(data)) return data
    let resolved: Record<string, unknown> | undefined
    for (const name in data) {
      const ref = refOf(data[name])
      if (ref === undefined) continue
      resolved ??= { ...data }
      resolved[name] = this.#value(op, `data.${name}`, ref)
    }
    return resolved ?? data
  }
}
