// `reorder`: sets an integer field to 1, 2, 3, ... in the order of `keys`. Every record is locked
// and judged first (its rule, its etag, as it stands before anything moves); the records whose
// value changes are then, where a unique index covers the field, set aside out of the range in
// use without touching their ETags (above the highest value, or below the lowest when a check
// constraint refuses that), and finally written as ordinary updates: one version bump each, and
// the hooks see each with its stored record from before the reorder.
import { control, query, rows, type Queryable } from '../db/query.js'
import { keyFromValue, partsText } from '../model/keys.js'
import { isPgError } from '../db/pg-errors.js'
import { problem } from '../problems.js'
import { parseIfMatch } from '../query/params.js'
import { compileBounds, compileSetAside } from '../sql/write.js'
import { applyWrite, lockForWrite, type LockedRecord, type WriteContext } from './pipeline.js'
import type { WritePlan } from '../plan/types.js'
import { invalidOperation, planAdmitted, type BatchOperation } from './batch-operations.js'
import type { Refs } from './batch-refs.js'
import { reorderedResult } from '../serialize/envelopes.js'

type Reorder = Extract<BatchOperation, { op: 'reorder' }>

// Where setting values aside above the range fails, below it is tried: a check constraint, or
// the column's type running out.
const REFUSED_ABOVE = new Set(['23514', '22003'])

async function setAside (tx: Queryable, plans: readonly WritePlan[], column: string, first: bigint, step: bigint): Promise<void> {
  for (const [i, plan] of plans.entries()) await query(tx, compileSetAside(plan, column, String(first + step * BigInt(i))))
}

export async function reorder (op: Reorder, refs: Refs, context: WriteContext, tx: Queryable): Promise<string> {
  const { access } = context
  const { model } = access
  const at = { op: op.op, resource: op.resource }
  // A field the caller cannot read is refused exactly like one that does not exist.
  const field = access.readable.find((f) => f.name === op.field)
  if (field === undefined) throw invalidOperation(op.index, 'field', `${model.name} has no field '${op.field}'.`, at)
  if (field.type !== 'integer' && field.type !== 'bigint') throw invalidOperation(op.index, 'field', `reorder numbers an integer field, and ${field.name} is a ${field.type}.`, at)
  if (!access.writable.includes(field)) throw invalidOperation(op.index, 'field', `${field.name} is read-only.`, at)

  const keys = op.keys.map((k) => keyFromValue(model, refs.key(op, k)))
  const texts = keys.map(partsText)
  const seen = new Set<string>()
  for (const text of texts) {
    if (seen.has(text)) throw invalidOperation(op.index, 'keys', `key ${text} is listed twice.`, at)
    seen.add(text)
  }
  for (const text of Object.keys(op.etags)) {
    if (!seen.has(text)) throw invalidOperation(op.index, 'etags', `etags names key ${text}, which keys does not list.`, at)
  }

  // Every record locked and judged before anything moves: all etags meet the records as they were.
  const plans: WritePlan[] = []
  const locked: LockedRecord[] = []
  for (const [i, key] of keys.entries()) {
    const etag = Object.hasOwn(op.etags, texts[i]!) ? op.etags[texts[i]!] : undefined
    if (etag !== undefined && typeof etag !== 'string') throw invalidOperation(op.index, 'etags', `the etag of ${texts[i]} is text.`, at)
    const plan = await planAdmitted({ operation: 'update', key, body: { [field.name]: i + 1 }, ifMatch: etag === undefined ? '*' : parseIfMatch(etag) }, context)
    plans.push(plan)
    locked.push(await lockForWrite(plan, context, tx))
  }
  const changing = plans.flatMap((plan, i) => String(locked[i]!.row[field.name]) === String(i + 1) ? [] : [i])
  for (const i of changing) {
    if (op.etags[texts[i]!] === undefined) {
      throw problem('precondition-required', `Record ${texts[i]} changes position: send its etag in etags (or * to move any version).`)
    }
  }

  if (changing.length > 0 && model.uniqueColumns.has(field.column)) {
    const moved = changing.map((i) => plans[i]!)
    const [bounds] = await rows<{ top: string | null, bottom: string | null }>(tx, compileBounds(model, field.column))
    await control(tx, 'SAVEPOINT tg_reorder')
    try {
      await setAside(tx, moved, field.column, BigInt(bounds?.top ?? '0') + 1n, 1n)
    } catch (err) {
      if (!isPgError(err) || !REFUSED_ABOVE.has(err.code)) throw err
      await control(tx, 'ROLLBACK TO SAVEPOINT tg_reorder')
      await setAside(tx, moved, field.column, BigInt(bounds?.bottom ?? '0') - 1n, -1n)
    }
    await control(tx, 'RELEASE SAVEPOINT tg_reorder')
  }

  const etags = locked.map((record) => record.etag)
  for (const i of changing) etags[i] = (await applyWrite(plans[i]!, context, tx, locked[i]!)).etag
  return reorderedResult(texts.map((key, i) => ({ key, etag: etags[i]! })))
}
